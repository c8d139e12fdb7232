/** The search screens' words. */

/** '1 result', '134 results', 'More than 1000 results' when the server stopped counting. */
export function resultCount(total: number, capped: boolean): string {
  if (capped) return `More than ${total} results`;
  return `${total} ${total === 1 ? 'result' : 'results'}`;
}

export const SEARCH_MSG = {
  boxLabel: 'Search files',
  boxPlaceholder: 'Search files…',
  searching: 'Searching…',
  failed: 'Search failed. Please try again.',
  /** The results screen without words yet. */
  prompt: 'Type a word or phrase to search the files you may read.',
  syntax: 'All words must match. "a phrase" in quotes, -word to leave out, and pneu* for words starting with pneu.',
  noResults: (q: string) => `No files match “${q}”.`,
  noResultsFiltered: 'Try fewer words, or clear the filters.',
  count: (total: number, capped: boolean, q: string) => `${resultCount(total, capped)} for “${q}”`,
  page: (n: number) => `Page ${n}`,
  /** A dates range that ends before it starts: said before asking the server. */
  badRange: 'The “Modified to” date is before the “Modified from” date.',
  /** A group of hits whose folder has no patient details recorded. */
  patientUnknown: 'Patient details not recorded',
  hitsIn: (container: string, folder: string) => `Files found in ${container} / ${folder}`,
  /** The phone's disclosure of the filters, with how many are set. */
  filters: (set: number) => (set ? `Filters (${set} set)` : 'Filters'),
} as const;
