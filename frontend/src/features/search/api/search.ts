/** GET /api/search: one page of the files the caller may read whose text or name matches. */
import { useQuery } from '@tanstack/react-query';
import { ApiError, apiRequest } from '../../../lib/api/client';
import type { SearchResponse } from '../../../lib/api/types';
import { searchKeys } from '../../../lib/queryKeys';
import type { SearchQuery } from '../../../lib/searchQuery';

export const SEARCH_PAGE_SIZE = 20;

/** Results are a moment's answer, and each search is audited: a page seen in the last minute is
 * shown again (going back a page) rather than searched again. */
const SEARCH_STALE_MS = 60_000;

export const searchFiles = (query: SearchQuery, cursor: string | null, signal?: AbortSignal): Promise<SearchResponse> =>
  apiRequest<SearchResponse>('/search', { query: { ...query, cursor, limit: SEARCH_PAGE_SIZE }, signal });

const sameSearch = (a: unknown, b: SearchQuery): boolean => JSON.stringify(a) === JSON.stringify(b);

/** A search the server answered is not asked again by itself: a 503 means it took too long (the
 * same search would again), a 429 that the user's searches per minute are spent, and each try
 * is audited and counted. Only a search that never reached the server is tried once more. */
export const searchRetry = (failureCount: number, error: unknown): boolean =>
  !(error instanceof ApiError) && failureCount < 1;

/** Nothing is asked while there are no words (the server refuses an empty query). Paging, the
 * page before stays on screen, marked busy, while the next one loads; another search's results
 * never stand in for this one's. */
export const useSearch = (query: SearchQuery, cursor: string | null) =>
  useQuery({
    queryKey: searchKeys.page(query, cursor),
    queryFn: ({ signal }) => searchFiles(query, cursor, signal),
    enabled: query.q !== '',
    staleTime: SEARCH_STALE_MS,
    retry: searchRetry,
    placeholderData: (previous, previousQuery) =>
      previousQuery && sameSearch(previousQuery.queryKey[1], query) ? previous : undefined,
  });
