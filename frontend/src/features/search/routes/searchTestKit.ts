/** What the search's tests share (SearchPage*.test.tsx): users, results and pages as the server
 * answers them, the calls' query strings, and the screen's regions. */
import { screen, within } from '@testing-library/react';
import type { SearchResponse, SearchResult } from '../../../lib/api/types';
import { mockApi } from '../../../test/utils';

export const DOCTOR = { id: 3, name: 'Dana Doctor', username: 'dana', role: 'doctor' as const };
export const ASSISTANT = { id: 4, name: 'Asa Assistant', username: 'asa', role: 'assistant' as const };
export const SEARCH = 'GET /api/search';
export const T = '2026-01-02T10:00:00Z';

export const result = (over: Partial<SearchResult> = {}): SearchResult => ({
  containerName: 'ward a',
  folderName: 'p-1',
  blobName: 'discharge.pdf',
  contentType: 'application/pdf',
  lastModified: T,
  snippet: { text: 'Known penicillin allergy since 2019.', highlights: [[6, 16]] },
  page: 3,
  patient: null,
  ...over,
});
export const scan = result({
  blobName: 'referral.png',
  contentType: 'image/png',
  folderName: 'p-2',
  snippet: { text: 'penicillin allergy: rash', highlights: [[0, 10]] },
  page: 1,
});
export const page = (results: SearchResult[], over: Partial<SearchResponse> = {}): SearchResponse => ({
  results,
  nextCursor: null,
  total: results.length,
  totalCapped: false,
  ...over,
});

/** The search calls' query strings, as URLSearchParams. */
export const searches = (api: ReturnType<typeof mockApi>) =>
  api.calls.filter((c) => c.path === '/api/search').map((c) => new URLSearchParams(c.search));

/** Longer than app/live's SEARCH_REFETCH_MS: search pages a patient's change marked are asked again by then. */
export const REFETCH_WAIT_MS = 3000;

export const location = () => screen.getByTestId('location').textContent ?? '';
/** The results section: its heading, its live count, its list. */
export const results = () => screen.getByRole('region', { name: 'Results' });
export const count = () => within(results()).getByRole('status');
export const form = () => screen.getByRole('form', { name: 'Search and filters' });

/** The results screen's modules, imported before a file's tests (beforeAll): a file's first test
 * would otherwise wait on their cold import, on a busy machine longer than findBy's timeout. */
export const loadScreen = () => import('./SearchPage');
