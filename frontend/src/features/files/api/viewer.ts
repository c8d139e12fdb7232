/**
 * GET /api/blobs/{container}/{folder}/{blob}/viewer: how the in-app viewer shows one file (its
 * kind, and signed short-lived links to what it shows: an image, a text, a DOCX's sanitised
 * HTML, or a PDF's pages rendered as images on the server), and the fetch of a text through its
 * link. Under .../viewer/{version}: a page's words with their boxes (the text layer and the
 * highlights) and the matches of a find, by the opening's links (wordsUrl, findUrl), and the report
 * of a copy (issue 50).
 */
import { queryOptions, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
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

/** How long a first load's prefetched opening (features/files/api/prefetch.ts) waits for the
 * viewer to mount. */
export const PREFETCHED_VIEWER_MS = 60_000;

/** enabled false: a file the listing says cannot be displayed is not asked for (issue 49). Its
 * opening is removed when the viewer leaves it, so a prefetched one (kept longer) is never reused
 * by a later opening: each is its own audited view. */
export function useViewer(container: string, folder: string, blob: string, version: string, enabled = true) {
  const client = useQueryClient();
  useEffect(
    () => () => client.removeQueries({ queryKey: viewerKeys.file(container, folder, blob, version), exact: true }),
    [client, container, folder, blob, version],
  );
  return useQuery({ ...viewerQuery(container, folder, blob, version), enabled });
}

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

/** What the viewer's text calls name: one version of one file, and the links its opening handed
 * out for its words and find (signed for that viewer session until expiresAt: the opening's audit
 * entry covers what they read; a session alone is refused). */
export interface ViewerVersion {
  container: string;
  folder: string;
  blob: string;
  versionId: string;
  /** ViewerOpen.wordsUrl: a template with {page}; null without a text layer. */
  wordsUrl: string | null;
  /** ViewerOpen.findUrl: &q= appended; null without a text layer. */
  findUrl: string | null;
  /** A link was refused (403: expired): open the file again for new ones (once per opening). */
  onLinkRefused: () => void;
}

const versionPath = ({ container, folder, blob, versionId }: ViewerVersion) =>
  `${filePath(container, folder, blob)}/viewer/${encodeURIComponent(versionId)}`;

/** JSON behind a signed link (no session header: the link is the credential); ApiError on failure. */
async function getSigned<T>(url: string, signal?: AbortSignal): Promise<T> {
  let response: Response;
  try {
    response = await fetch(serverUrl(url), { signal, credentials: 'same-origin', headers: { Accept: 'application/json' } });
  } catch (error) {
    if (error instanceof DOMException && error.name === 'AbortError') throw error;
    throw new ApiError(0, null);
  }
  const data: unknown = await response.json().catch(() => null);
  if (!response.ok) throw new ApiError(response.status, messageOf(data));
  return data as T;
}

/** A link the server refused (expired, or of another session): the viewer asks for new links. */
const linkRefused = (error: unknown) => error instanceof ApiError && error.status === 403;

function useRenewOnRefusal(error: unknown, onLinkRefused: () => void) {
  const renew = useRef(onLinkRefused);
  useEffect(() => {
    renew.current = onLinkRefused;
  });
  useEffect(() => {
    if (linkRefused(error)) renew.current();
  }, [error]);
}

/** Whether two of this file's query keys differ only in their last part, the link (the same
 * words, page or find of the same version asked again under new links). */
export function sameButLink(previous: readonly unknown[] | undefined, key: readonly unknown[]): boolean {
  return previous !== undefined && previous.length === key.length && key.slice(0, -1).every((part, index) => previous[index] === part);
}

/** GET wordsUrl with its {page}: a page's words with their boxes. */
export const getPageWords = (template: string, page: number, signal?: AbortSignal): Promise<PageWords> =>
  getSigned<PageWords>(template.replace('{page}', String(page)), signal);

/** A page's words, once per page of this opening (its audit entry covers them; new links after they
 * expired ask again, the page's words shown meanwhile); a page without text (404) has none.
 * `enabled`: the server said words are stored (textLayer). */
export function usePageWords(version: ViewerVersion, page: number, enabled: boolean) {
  const url = version.wordsUrl;
  const key = [...viewerKeys.file(version.container, version.folder, version.blob, version.versionId), 'words', page, url] as const;
  const words = useQuery({
    queryKey: key,
    queryFn: ({ signal }) => getPageWords(url ?? '', page, signal),
    enabled: enabled && Boolean(url),
    // The page's words while new links ask (never another page's, file's or version's).
    placeholderData: (previous, previousQuery) => (sameButLink(previousQuery?.queryKey, key) ? previous : undefined),
    staleTime: Infinity,
    gcTime: 5 * 60_000,
    retry: false,
    refetchOnWindowFocus: false,
  });
  useRenewOnRefusal(words.error, version.onLinkRefused);
  return words;
}

/** GET findUrl&q=: where the words of q are in the file. */
export const findText = (url: string, q: string, signal?: AbortSignal): Promise<TextMatches> =>
  getSigned<TextMatches>(`${url}&${new URLSearchParams({ q }).toString()}`, signal);

export function useFindText(version: ViewerVersion, q: string, enabled: boolean) {
  const url = version.findUrl;
  const key = [...viewerKeys.file(version.container, version.folder, version.blob, version.versionId), 'find', q, url] as const;
  const found = useQuery({
    queryKey: key,
    queryFn: ({ signal }) => findText(url ?? '', q, signal),
    enabled: enabled && Boolean(url) && q.trim() !== '',
    // The same words in the same file asked again under new links: their matches shown meanwhile
    // (never another file's or version's: its word spans would be drawn on this one's words).
    placeholderData: (previous, previousQuery) => (sameButLink(previousQuery?.queryKey, key) ? previous : undefined),
    staleTime: Infinity,
    gcTime: 5 * 60_000,
    retry: false,
    refetchOnWindowFocus: false,
  });
  useRenewOnRefusal(found.error, version.onLinkRefused);
  return found;
}

/** POST .../viewer/{version}/copied: text copied from a page, audited by the server (file_copy). */
export const reportCopied = (version: ViewerVersion, body: TextCopied): Promise<void> =>
  apiRequest<void>(`${versionPath(version)}/copied`, { method: 'POST', body });

/** The viewer's one copy reporter, for whatever it shows as text (a page's text layer, a text or
 * RTF file, a DOCX's frame): a copy event's selection (in the document it happened in) reported
 * with its page and length; nothing selected, nothing reported. The copy itself is the
 * browser's; a refused report (the server's 60 a minute per user) is not the reader's concern. */
export function reportCopy(version: ViewerVersion, page: number, selection: Selection | null): void {
  const characters = selection?.toString().length ?? 0;
  if (characters > 0) reportCopied(version, { page, characters }).catch(() => undefined);
}
