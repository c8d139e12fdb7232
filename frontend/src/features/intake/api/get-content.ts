/** GET /api/intake/items/{id}/content: an item's bytes, with the session's header (each read is
 * audited): the document opened in a new tab (the inbox's thumbnails are the server's: ItemThumb). */
import { apiBlob } from '../../../lib/api/client';
import { saveBlob } from '../../../lib/download';
import { itemPath } from './paths';

export const getItemContent = (id: number, signal?: AbortSignal): Promise<Blob> => apiBlob(`${itemPath(id)}/content`, { signal });

/** Types a browser shows by itself and that can run nothing in this page's origin (an HTML or
 * SVG document opened from a blob: URL would run as the app). */
const SHOWN_INLINE = new Set(['application/pdf', 'image/png', 'image/jpeg', 'image/gif', 'image/webp']);

/** The item's type when a new tab may show it, else null (then it is downloaded). */
export const inlineType = (contentType: string): string | null => {
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  return SHOWN_INLINE.has(type) ? type : null;
};

/** Open the document in a new tab (the browser's own viewer for a PDF or an image), or download
 * any other type. The tab is opened at once, inside the click, so that no pop-up blocker stops
 * it; it shows the content once fetched, or closes when the fetch fails. */
export async function openItemContent(item: { id: number; contentType: string; fileName: string }): Promise<void> {
  const type = inlineType(item.contentType);
  if (type === null) {
    saveBlob(await getItemContent(item.id), item.fileName);
    return;
  }
  const tab = window.open('', '_blank');
  try {
    // Shown as the type checked here, whatever the answer says.
    const blob = new Blob([await getItemContent(item.id)], { type });
    const url = URL.createObjectURL(blob);
    if (tab) tab.location.href = url;
    // The tab has loaded it by then; the memory goes with the URL.
    setTimeout(() => URL.revokeObjectURL(url), 60_000);
  } catch (error) {
    tab?.close();
    throw error;
  }
}
