/**
 * A full-text search as the results screen's address says it (/search?q=...&container=...):
 * read from and written to the URL, so that a search can be bookmarked, shared within the team,
 * gone back to, and started from anywhere (the top bar, a folder page's "Search in this folder").
 */
import type { FileType } from './api/types';

/** The filters of GET /api/search besides the cursor and the page size. */
export interface SearchQuery {
  q: string;
  container: string;
  folder: string;
  /** One of FILE_TYPES, or '' for any. */
  type: FileType | '';
  /** YYYY-MM-DD, the first day included. */
  modifiedFrom: string;
  /** YYYY-MM-DD, the last day included. */
  modifiedTo: string;
}

export const SEARCH_PATH = '/search';

const FIELDS = ['q', 'container', 'folder', 'type', 'modifiedFrom', 'modifiedTo'] as const;

export const EMPTY_SEARCH: SearchQuery = { q: '', container: '', folder: '', type: '', modifiedFrom: '', modifiedTo: '' };

const DAY = /^\d{4}-\d{2}-\d{2}$/;

const isFileType = (value: string): value is FileType => FILE_TYPES.some((type) => type.value === value);

/** The search an address names; a date that is not YYYY-MM-DD, or a file type not in FILE_TYPES,
 * is left out (the form's inputs could not show it, and the server would refuse the search). */
export function parseSearch(params: URLSearchParams): SearchQuery {
  const read = (field: (typeof FIELDS)[number]) => (params.get(field) ?? '').trim();
  const day = (value: string) => (DAY.test(value) ? value : '');
  const type = read('type');
  return {
    q: read('q'),
    container: read('container'),
    folder: read('folder'),
    type: isFileType(type) ? type : '',
    modifiedFrom: day(read('modifiedFrom')),
    modifiedTo: day(read('modifiedTo')),
  };
}

/** The address's query string for a search: only the fields given, in one order. */
export function searchParams(query: Partial<SearchQuery>): URLSearchParams {
  const params = new URLSearchParams();
  for (const field of FIELDS) {
    const value = (query[field] ?? '').trim();
    if (value) params.set(field, value);
  }
  return params;
}

/** /search?q=... for a search. */
export function searchUrl(query: Partial<SearchQuery>): string {
  const search = searchParams(query).toString();
  return search ? `${SEARCH_PATH}?${search}` : SEARCH_PATH;
}

/** Whether any filter besides the words is set. */
export const hasFilters = (query: SearchQuery): boolean => FIELDS.some((field) => field !== 'q' && query[field] !== '');

/** The file types a search can be narrowed to (the server tells them by extension): the
 * `type` parameter's values and their labels. */
export const FILE_TYPES: readonly { value: FileType; label: string }[] = [
  { value: 'pdf', label: 'PDF' },
  { value: 'word', label: 'Word document' },
  { value: 'text', label: 'Text' },
  { value: 'image', label: 'Image' },
];
