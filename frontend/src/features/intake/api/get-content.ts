/** GET /api/intake/items/{id}/content: an item's bytes, with the session's header (each read is
 * audited): an image item's thumbnail, and the document opened in a new tab. */
import { useQuery } from '@tanstack/react-query';
import { apiBlob } from '../../../lib/api/client';
import { intakeKeys } from '../../../lib/queryKeys';
import { itemPath } from './paths';

export const getItemContent = (id: number, signal?: AbortSignal): Promise<Blob> => apiBlob(`${itemPath(id)}/content`, { signal });

/** An image item's picture, fetched once (a rotation's live event refetches it); `enabled`
 * false for items that are no image, or too large to fetch for a thumbnail. */
export const useItemPicture = (id: number, enabled: boolean) =>
  useQuery({
    queryKey: intakeKeys.content(id),
    queryFn: ({ signal }) => getItemContent(id, signal),
    staleTime: Infinity,
    enabled,
  });

/** Open the document in a new tab (the browser's own viewer for a PDF or an image). The window
 * is opened at once, inside the click, so that no pop-up blocker stops it; it shows the content
 * once fetched, or closes when the fetch fails. */
export async function openItemContent(id: number): Promise<void> {
  const tab = window.open('', '_blank');
  try {
    const blob = await getItemContent(id);
    const url = URL.createObjectURL(blob);
    if (tab) tab.location.href = url;
    // The tab has loaded it by then; the memory goes with the URL.
    setTimeout(() => URL.revokeObjectURL(url), 60_000);
  } catch (error) {
    tab?.close();
    throw error;
  }
}
