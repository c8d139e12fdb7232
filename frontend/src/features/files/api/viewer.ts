/**
 * GET /api/blobs/{container}/{folder}/{blob}/viewer: how the in-app viewer shows one file (its
 * kind, and signed short-lived links to what it shows: an image, a text, a DOCX's sanitised
 * HTML, or a PDF's pages rendered as images on the server), and the fetch of a text through its
 * link. Under .../viewer/{version}: a page's words with their boxes (the text layer and the
 * highlights), the matches of a find, and the report of a copy (issue 50).
 */
import { queryOptions, useQuery } from '@tanstack/react-query';
import { ApiError, apiRequest, messageOf, serverUrl } from '../../../lib/api/client';
import type { PageWords, TextCopied, TextMatches, ViewerResponse } from '../../../lib/api/types';
import { viewerKeys } from '../../../lib/queryKeys';
import { filePath } from './paths';

export const getViewer = (container: string, folder: string, blob: string, signal?: AbortSignal): Promise<ViewerResponse> =>
  apiRequest<ViewerResponse>(`${filePath(container, folder, blob)}/viewer`, { signal });

/**
 * One opening of a file: the server audits each answer as one view, so it is asked once per
 * opening (never on focus, never kept once the viewer closes: gcTime 0) and again only for a
 * new version of the file (`version`, its lastModified) or when its links have expired.
 */
export const viewerQuery = (container: string, folder: string, blob: string, version: string) =>
  queryOptions({
    queryKey: viewerKeys.file(container, folder, blob, version),
    queryFn: ({ signal }) => getViewer(container, folder, blob, signal),
    staleTime: Infinity,
    gcTime: 0,
    retry: false,
    refetchOnWindowFocus: false,
    refetchOnReconnect: false,
  });

/** enabled false: a file the listing says cannot be displayed is not asked for (issue 49). */
export const useViewer = (container: string, folder: string, blob: string, version: string, enabled = true) =>
  useQuery({ ...viewerQuery(container, folder, blob, version), enabled });

/** Texts longer than this are cut (a note says so): a browser lays out a long <pre> slowly. */
export const TEXT_LIMIT = 1_000_000;

/** The text behind a signed link, read as text (never as HTML); ApiError on failure. */
export async function getText(url: string, signal?: AbortSignal): Promise<{ text: string; cut: boolean }> {
  let response: Response;
  try {
    response = await fetch(serverUrl(url), { signal, credentials: 'same-origin', headers: { Accept: 'text/plain' } });
  } catch (error) {
    if (error instanceof DOMException && error.name === 'AbortError') throw error;
    throw new ApiError(0, null);
  }
  if (!response.ok) throw new ApiError(response.status, messageOf(await response.json().catch(() => null)));
  const text = await response.text();
  return text.length > TEXT_LIMIT ? { text: text.slice(0, TEXT_LIMIT), cut: true } : { text, cut: false };
}

/** The text of the file the viewer shows, fetched once per link. */
export const useViewerText = (url: string | null | undefined) =>
  useQuery({
    queryKey: viewerKeys.text(url ?? ''),
    queryFn: ({ signal }) => getText(url ?? '', signal),
    enabled: Boolean(url),
    staleTime: Infinity,
    gcTime: 0,
    retry: false,
    refetchOnWindowFocus: false,
  });

/** What the viewer's text calls name: one version of one file. */
export interface ViewerVersion {
  container: string;
  folder: string;
  blob: string;
  versionId: string;
}

const versionPath = ({ container, folder, blob, versionId }: ViewerVersion) =>
  `${filePath(container, folder, blob)}/viewer/${encodeURIComponent(versionId)}`;

/** GET .../viewer/{version}/words?page=N: a page's words with their boxes. */
export const getPageWords = (version: ViewerVersion, page: number, signal?: AbortSignal): Promise<PageWords> =>
  apiRequest<PageWords>(`${versionPath(version)}/words`, { query: { page }, signal });

/** A page's words, once per page of this version (its opening's audit entry covers them); a page
 * without text (404) has none. `enabled`: the server said words are stored (textLayer). */
export const usePageWords = (version: ViewerVersion, page: number, enabled: boolean) =>
  useQuery({
    queryKey: [...viewerKeys.file(version.container, version.folder, version.blob, version.versionId), 'words', page] as const,
    queryFn: ({ signal }) => getPageWords(version, page, signal),
    enabled,
    staleTime: Infinity,
    gcTime: 5 * 60_000,
    retry: false,
    refetchOnWindowFocus: false,
  });

/** GET .../viewer/{version}/find?q=: where the words of q are in the file. */
export const findText = (version: ViewerVersion, q: string, signal?: AbortSignal): Promise<TextMatches> =>
  apiRequest<TextMatches>(`${versionPath(version)}/find`, { query: { q }, signal });

export const useFindText = (version: ViewerVersion, q: string, enabled: boolean) =>
  useQuery({
    queryKey: [...viewerKeys.file(version.container, version.folder, version.blob, version.versionId), 'find', q] as const,
    queryFn: ({ signal }) => findText(version, q, signal),
    enabled: enabled && q.trim() !== '',
    staleTime: Infinity,
    gcTime: 5 * 60_000,
    retry: false,
    refetchOnWindowFocus: false,
  });

/** POST .../viewer/{version}/copied: text copied from a page, audited by the server (file_copy). */
export const reportCopied = (version: ViewerVersion, body: TextCopied): Promise<void> =>
  apiRequest<void>(`${versionPath(version)}/copied`, { method: 'POST', body });
