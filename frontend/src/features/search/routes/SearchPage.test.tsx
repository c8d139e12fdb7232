import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { SearchResponse, SearchResult } from '../../../lib/api/types';
import { lastSocket, sockets } from '../../../test/socketMock';
import { ADMIN, mockApi, never, NURSE, renderApp, signIn, type Handler } from '../../../test/utils';

const DOCTOR = { id: 3, name: 'Dana Doctor', username: 'dana', role: 'doctor' as const };
const ASSISTANT = { id: 4, name: 'Asa Assistant', username: 'asa', role: 'assistant' as const };
const SEARCH = 'GET /api/search';
const T = '2026-01-02T10:00:00Z';

const result = (over: Partial<SearchResult> = {}): SearchResult => ({
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
const scan = result({
  blobName: 'referral.png',
  contentType: 'image/png',
  folderName: 'p-2',
  snippet: { text: 'penicillin allergy: rash', highlights: [[0, 10]] },
  page: 1,
});
const page = (results: SearchResult[], over: Partial<SearchResponse> = {}): SearchResponse => ({
  results,
  nextCursor: null,
  total: results.length,
  totalCapped: false,
  ...over,
});

/** The search calls' query strings, as URLSearchParams. */
const searches = (api: ReturnType<typeof mockApi>) =>
  api.calls.filter((c) => c.path === '/api/search').map((c) => new URLSearchParams(c.search));

/** Longer than app/live's SEARCH_REFETCH_MS: search pages a patient's change marked are asked again by then. */
const REFETCH_WAIT_MS = 3000;

const location = () => screen.getByTestId('location').textContent ?? '';
/** The results section: its heading, its live count, its list. */
const results = () => screen.getByRole('region', { name: 'Results' });
const count = () => within(results()).getByRole('status');
const form = () => screen.getByRole('form', { name: 'Search and filters' });

describe('search: the top bar’s box', () => {
  it.each([ADMIN, DOCTOR, NURSE, ASSISTANT])('is there for every role ($role)', async (who) => {
    signIn(who);
    mockApi();
    renderApp('/my-assignments');
    expect(await screen.findByRole('search', { name: 'Search files' })).toBeInTheDocument();
    expect(screen.getByRole('searchbox', { name: 'Search files' })).toHaveAttribute('aria-keyshortcuts', '/');
  });

  it('takes the focus on the / key, unless the reader is typing in a field', async () => {
    signIn(NURSE);
    mockApi();
    renderApp('/search');
    const box = await screen.findByRole('searchbox', { name: 'Search files' });
    await userEvent.keyboard('/');
    expect(box).toHaveFocus();
    expect(box).toHaveValue('');
    const field = await screen.findByRole('searchbox', { name: 'Search for' });
    await userEvent.click(field);
    await userEvent.keyboard('a/b');
    expect(field).toHaveFocus();
    expect(field).toHaveValue('a/b');
  });

  it('goes to the results screen with the words, which searches them', async () => {
    signIn(NURSE);
    const api = mockApi({ [SEARCH]: { body: page([result()]) } });
    renderApp('/dashboard');
    await userEvent.type(await screen.findByRole('searchbox', { name: 'Search files' }), 'penicillin allergy{Enter}');
    await waitFor(() => expect(location()).toBe('/search?q=penicillin+allergy'));
    await screen.findByRole('list', { name: 'Search results' });
    const [sent] = searches(api);
    expect(sent?.get('q')).toBe('penicillin allergy');
    expect(sent?.get('limit')).toBe('20');
    expect(sent?.has('cursor')).toBe(false);
  });

  it('goes nowhere without words', async () => {
    signIn(NURSE);
    const api = mockApi();
    renderApp('/my-assignments');
    const box = await screen.findByRole('searchbox', { name: 'Search files' });
    await userEvent.type(box, '   {Enter}');
    expect(location()).toBe('/my-assignments');
    expect(box).toHaveFocus();
    expect(searches(api)).toHaveLength(0);
  });

  it('on the results screen shows its words and keeps its filters', async () => {
    signIn(NURSE);
    const api = mockApi({ [SEARCH]: { body: page([result()]) } });
    renderApp('/search?q=allergy&container=ward+a&type=pdf');
    const box = await screen.findByRole('searchbox', { name: 'Search files' });
    expect(box).toHaveValue('allergy');
    await userEvent.clear(box);
    await userEvent.type(box, 'rash{Enter}');
    await waitFor(() => expect(location()).toBe('/search?q=rash&container=ward+a&type=pdf'));
    await waitFor(() => expect(searches(api).at(-1)?.get('q')).toBe('rash'));
    expect(searches(api).at(-1)?.get('container')).toBe('ward a');
    expect(searches(api).at(-1)?.get('type')).toBe('pdf');
  });
});

describe('search: the results screen', () => {
  beforeEach(() => signIn(NURSE));

  it('asks for words, and searches nothing, without them', async () => {
    const api = mockApi();
    renderApp('/search?container=ward+a&folder=p-1');
    expect(await screen.findByText('Type a word or phrase to search the files you may read.')).toBeInTheDocument();
    // The folder's filters are filled in, waiting for the words.
    expect(screen.getByRole('textbox', { name: 'Container' })).toHaveValue('ward a');
    expect(screen.getByRole('textbox', { name: 'Patient folder' })).toHaveValue('p-1');
    expect(searches(api)).toHaveLength(0);
  });

  it('shows loading', async () => {
    mockApi({ [SEARCH]: never });
    renderApp('/search?q=penicillin');
    expect(await screen.findByText('Searching…')).toBeInTheDocument();
  });

  it('lists each result’s file, patient folder, date, type, page and snippet with the matches marked', async () => {
    mockApi({ [SEARCH]: { body: page([result(), scan]) } });
    renderApp('/search?q=penicillin');
    const list = await screen.findByRole('list', { name: 'Search results' });
    const first = within(list).getByRole('list', { name: 'Files found in ward a / p-1' }).querySelector('li');
    const second = within(list).getByRole('list', { name: 'Files found in ward a / p-2' }).querySelector('li');
    expect(within(first!).getByRole('link', { name: /^discharge\.pdf ?\(page 3\)/ })).toHaveAttribute('title', 'Click to open');
    expect(within(list).getByRole('link', { name: 'ward a / p-1' })).toHaveAttribute('href', '/containers/ward%20a/folders/p-1');
    expect(first).toHaveTextContent(/Modified 02 Jan 2026/);
    expect(first).toHaveTextContent('PDF');
    expect(first).toHaveTextContent('Known penicillin allergy since 2019.');
    expect([...first!.querySelectorAll('mark')].map((m) => m.textContent)).toEqual(['penicillin']);
    // A single image is the server's page 1: no page to tell.
    expect(within(second!).getByRole('link', { name: /^referral\.png/ })).not.toHaveTextContent('page');
    expect(second).toHaveTextContent('PNG');
    expect([...second!.querySelectorAll('mark')].map((m) => m.textContent)).toEqual(['penicillin']);
  });

  it('announces the count and moves the focus to the results', async () => {
    mockApi({ [SEARCH]: { body: page([result(), scan]) } });
    renderApp('/search?q=penicillin');
    await waitFor(() => expect(count()).toHaveTextContent('2 results for “penicillin”'));
    expect(screen.getByRole('heading', { name: 'Results' })).toHaveFocus();
  });

  it.each([
    [page([result()]), '1 result for “x”'],
    [page([result()], { total: 1000, totalCapped: true, nextCursor: 'c2' }), 'More than 1000 results for “x”'],
  ])('says how many results (capped: more than)', async (body, text) => {
    mockApi({ [SEARCH]: { body } });
    renderApp('/search?q=x');
    await waitFor(() => expect(count()).toHaveTextContent(text));
  });

  it('links an admin to the admin’s folder page', async () => {
    signIn(ADMIN);
    mockApi({ [SEARCH]: { body: page([result()]) } });
    renderApp('/search?q=x');
    expect(await screen.findByRole('link', { name: 'ward a / p-1' })).toHaveAttribute('href', '/admin/containers/ward%20a/folders/p-1');
  });

  it('shows the server’s words as text, never as HTML', async () => {
    const text = '<img src=x onerror="alert(1)"> <b>penicillin</b>';
    mockApi({ [SEARCH]: { body: page([result({ snippet: { text, highlights: [[34, 44]] } })]) } });
    renderApp('/search?q=penicillin');
    const list = await screen.findByRole('list', { name: 'Search results' });
    expect(list.querySelector('img, b')).toBeNull();
    expect(list).toHaveTextContent(text);
    expect(list.querySelector('mark')).toHaveTextContent(/^penicillin$/);
  });

  it('says when nothing matches, and what to try', async () => {
    mockApi({ [SEARCH]: { body: page([]) } });
    renderApp('/search?q=zzz');
    expect(await screen.findByText('No files match “zzz”.')).toBeInTheDocument();
    expect(within(results()).getByText(/All words must match\. "a phrase" in quotes, -word to leave out/)).toBeInTheDocument();
    await waitFor(() => expect(count()).toHaveTextContent('0 results for “zzz”'));
  });

  it('suggests clearing the filters when nothing matches with filters', async () => {
    mockApi({ [SEARCH]: { body: page([]) } });
    renderApp('/search?q=zzz&type=image');
    expect(await screen.findByText('Try fewer words, or clear the filters.')).toBeInTheDocument();
  });

  it('shows the server’s message when the search is refused, and tries again', async () => {
    let answer = { status: 400, body: { message: 'The search is too long: at most 200 characters.' } } as { status: number; body: unknown };
    const api = mockApi({ [SEARCH]: () => answer });
    renderApp('/search?q=long');
    expect(await screen.findByRole('alert')).toHaveTextContent('The search is too long: at most 200 characters.');
    expect(count()).toHaveTextContent('');
    answer = { status: 200, body: page([result()]) };
    await userEvent.click(screen.getByRole('button', { name: 'Try again' }));
    await screen.findByRole('list', { name: 'Search results' });
    expect(searches(api)).toHaveLength(2);
  });

  it('falls back to its own words when the server sent none', async () => {
    mockApi({ [SEARCH]: { status: 500 } });
    renderApp('/search?q=x');
    expect(await screen.findByRole('alert')).toHaveTextContent('Search failed. Please try again.');
  });

  it('puts the filters in the address and sends them', async () => {
    const api = mockApi({ [SEARCH]: { body: page([result()]) } });
    renderApp('/search?q=allergy');
    await screen.findByRole('list', { name: 'Search results' });
    await userEvent.type(screen.getByRole('textbox', { name: 'Container' }), 'ward a');
    await userEvent.type(screen.getByRole('textbox', { name: 'Patient folder' }), 'p-1');
    await userEvent.selectOptions(screen.getByRole('combobox', { name: 'File type' }), 'PDF');
    fireEvent.change(screen.getByLabelText('Modified from'), { target: { value: '2026-01-01' } });
    fireEvent.change(screen.getByLabelText('Modified to'), { target: { value: '2026-01-31' } });
    await userEvent.click(within(form()).getByRole('button', { name: 'Search' }));
    await waitFor(() =>
      expect(location()).toBe('/search?q=allergy&container=ward+a&folder=p-1&type=pdf&modifiedFrom=2026-01-01&modifiedTo=2026-01-31'),
    );
    await waitFor(() => expect(searches(api)).toHaveLength(2));
    const sent = searches(api)[1]!;
    expect(Object.fromEntries(sent)).toEqual({
      q: 'allergy',
      container: 'ward a',
      folder: 'p-1',
      type: 'pdf',
      modifiedFrom: '2026-01-01',
      modifiedTo: '2026-01-31',
      limit: '20',
    });
    await waitFor(() => expect(screen.getByRole('heading', { name: 'Results' })).toHaveFocus());
  });

  it('refuses a date range that ends before it starts, before asking the server', async () => {
    const api = mockApi({ [SEARCH]: { body: page([result()]) } });
    renderApp('/search?q=allergy');
    await screen.findByRole('list', { name: 'Search results' });
    fireEvent.change(screen.getByLabelText('Modified from'), { target: { value: '2026-02-01' } });
    fireEvent.change(screen.getByLabelText('Modified to'), { target: { value: '2026-01-01' } });
    await userEvent.click(within(form()).getByRole('button', { name: 'Search' }));
    expect(within(form()).getByRole('alert')).toHaveTextContent('The “Modified to” date is before the “Modified from” date.');
    expect(location()).toBe('/search?q=allergy');
    expect(searches(api)).toHaveLength(1);
  });

  it('clears the filters and keeps the words', async () => {
    mockApi({ [SEARCH]: { body: page([result()]) } });
    renderApp('/search?q=allergy&container=ward+a&type=pdf&modifiedFrom=2026-01-01');
    await screen.findByRole('list', { name: 'Search results' });
    expect(screen.getByRole('combobox', { name: 'File type' })).toHaveValue('pdf');
    await userEvent.click(screen.getByRole('button', { name: 'Clear filters' }));
    await waitFor(() => expect(location()).toBe('/search?q=allergy'));
    expect(screen.getByRole('textbox', { name: 'Container' })).toHaveValue('');
  });

  it('pages by the server’s cursor, forward and back', async () => {
    const handler: Handler = ({ url }) =>
      url.searchParams.get('cursor') === 'c2'
        ? { body: page([scan], { total: 2 }) }
        : { body: page([result()], { total: 2, nextCursor: 'c2' }) };
    const api = mockApi({ [SEARCH]: handler });
    renderApp('/search?q=penicillin');
    const pages = await screen.findByRole('navigation', { name: 'Search result pages' });
    expect(within(pages).getByRole('button', { name: 'Previous' })).toBeDisabled();
    await userEvent.click(within(pages).getByRole('button', { name: 'Next' }));
    expect(await screen.findByRole('link', { name: /^referral\.png/ })).toBeInTheDocument();
    expect(within(pages).getByText('Page 2')).toBeInTheDocument();
    expect(within(pages).getByRole('button', { name: 'Next' })).toBeDisabled();
    expect(searches(api).at(-1)?.get('cursor')).toBe('c2');
    expect(screen.getByRole('heading', { name: 'Results' })).toHaveFocus();
    await userEvent.click(within(pages).getByRole('button', { name: 'Previous' }));
    expect(await screen.findByRole('link', { name: /^discharge\.pdf/ })).toBeInTheDocument();
    expect(within(pages).getByText('Page 1')).toBeInTheDocument();
  });
});

describe('search: results by patient (issue 50)', () => {
  beforeEach(() => signIn(DOCTOR));

  const jose = { name: 'José Müller', dateOfBirth: '1950-03-14', recordNumber: 'MRN-0042' };
  const ana = { name: 'Ana Lima', dateOfBirth: '1961-07-02', recordNumber: 'MRN-0007' };

  it('names each hit’s patient first (name, date of birth, record number), the folder second, one heading per patient', async () => {
    mockApi({
      [SEARCH]: {
        body: page([
          result({ patient: jose }),
          result({ blobName: 'letter.pdf', folderName: 'p-2', patient: ana }),
          result({ blobName: 'referral.pdf', patient: jose }),
        ]),
      },
    });
    renderApp('/search?q=penicillin');
    const list = await screen.findByRole('list', { name: 'Search results' });
    const headings = within(list).getAllByRole('heading', { level: 3 });
    expect(headings.map((h) => h.textContent)).toEqual(['José Müller · 14 Mar 1950 · MRN-0042', 'Ana Lima · 02 Jul 1961 · MRN-0007']);
    // José's two hits under his one heading, his folder after his name.
    const joses = within(list).getByRole('list', { name: 'Files found in ward a / p-1' });
    expect(within(joses).getAllByRole('link').map((a) => a.textContent)).toEqual([
      expect.stringMatching(/^discharge\.pdf/),
      expect.stringMatching(/^referral\.pdf/),
    ]);
    const group = joses.closest('.search-group')!;
    expect(group.textContent!.indexOf('José Müller')).toBeLessThan(group.textContent!.indexOf('ward a / p-1'));
  });

  it('shows a patient’s corrected details once they change (patient:changed), searching again only when a hit names them', async () => {
    let joseNow = jose;
    const api = mockApi({
      [SEARCH]: () => ({ body: page([result({ patient: joseNow }), result({ blobName: 'letter.pdf', folderName: 'p-2', patient: ana })]) }),
    });
    renderApp('/search?q=penicillin');
    const list = await screen.findByRole('list', { name: 'Search results' });
    await within(list).findByRole('heading', { name: 'José Müller · 14 Mar 1950 · MRN-0042' });
    await waitFor(() => expect(sockets.length).toBeGreaterThan(0));
    const changed = (folder: string) => ({ container: 'ward a', folder, by: 'Ada Admin', at: '2026-03-04T09:08:07Z' });
    // Another patient's change, not among the hits: no search again (each one is audited).
    act(() => lastSocket().serverEmit('patient:changed', changed('p-9')));
    joseNow = { ...jose, name: 'José Müller-Lima', recordNumber: 'MRN-0043' };
    // An import's burst of changes to the patients on the page: searched again once, together.
    for (let n = 0; n < 5; n += 1) {
      act(() => lastSocket().serverEmit('patient:changed', changed(n % 2 ? 'p-2' : 'p-1')));
    }
    const corrected = await within(list).findByRole('heading', { name: 'José Müller-Lima · 14 Mar 1950 · MRN-0043' }, { timeout: REFETCH_WAIT_MS });
    expect(corrected).toBeInTheDocument();
    expect(within(list).queryByRole('heading', { name: /^José Müller ·/ })).toBeNull();
    expect(searches(api)).toHaveLength(2);
  });

  it('never searches again for a patient’s change when the page has no answer (refused)', async () => {
    const message = 'Too many searches in a short time: wait 20 seconds and search again.';
    const api = mockApi({ [SEARCH]: { status: 429, body: { message } } });
    renderApp('/search?q=penicillin');
    expect(await screen.findByText(message)).toBeInTheDocument();
    await waitFor(() => expect(sockets.length).toBeGreaterThan(0));
    const asked = searches(api).length;
    act(() => lastSocket().serverEmit('patient:changed', { container: 'ward a', folder: 'p-1', by: 'Ada Admin', at: '2026-03-04T09:08:07Z' }));
    await new Promise((done) => setTimeout(done, REFETCH_WAIT_MS));
    expect(searches(api)).toHaveLength(asked);
  });

  it('says when a folder’s patient is not recorded, and still names the folder', async () => {
    mockApi({ [SEARCH]: { body: page([result({ patient: null })]) } });
    renderApp('/search?q=penicillin');
    expect(await screen.findByRole('heading', { level: 3, name: 'Patient details not recorded' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'ward a / p-1' })).toBeInTheDocument();
  });
});

describe('search: opening a result', () => {
  beforeEach(() => signIn(DOCTOR));

  it('opens the hit in the app: the folder page with the viewer at the page and the words, no new tab', async () => {
    const open = vi.spyOn(window, 'open');
    mockApi({ [SEARCH]: { body: page([result()]) }, 'GET /api/blobs/ward%20a/p-1': { body: { blobs: [], hasProfileImage: false } } });
    renderApp('/search?q=penicillin+allergy');
    const hit = await screen.findByRole('link', { name: /^discharge\.pdf/ });
    expect(hit).toHaveAttribute('href', '/containers/ward%20a/folders/p-1?view=discharge.pdf&page=3&q=penicillin+allergy');
    await userEvent.click(hit);
    await waitFor(() => expect(location()).toBe('/containers/ward%20a/folders/p-1?view=discharge.pdf&page=3&q=penicillin+allergy'));
    expect(open).not.toHaveBeenCalled();
  });

  it('names no page for a file without pages, and opens an admin’s folder page', async () => {
    signIn(ADMIN);
    mockApi({ [SEARCH]: { body: page([result({ blobName: 'scan.png', contentType: 'image/png', page: 1 })]) } });
    renderApp('/search?q=rash');
    expect(await screen.findByRole('link', { name: /^scan\.png/ })).toHaveAttribute(
      'href',
      '/admin/containers/ward%20a/folders/p-1?view=scan.png&q=rash',
    );
  });
});

describe('search: the filters on a phone (issue 50)', () => {
  const phone = (matches: boolean) =>
    vi.stubGlobal('matchMedia', (query: string) => ({
      matches,
      media: query,
      addEventListener: () => undefined,
      removeEventListener: () => undefined,
    }));
  afterEach(() => vi.unstubAllGlobals());

  it('keeps them behind a closed Filters disclosure, saying how many are set', async () => {
    signIn(NURSE);
    phone(true);
    mockApi({ [SEARCH]: { body: page([result()]) } });
    renderApp('/search?q=x&container=ward+a&type=pdf');
    const toggle = await screen.findByRole('button', { name: 'Filters (2 set)' });
    expect(toggle).toHaveAttribute('aria-expanded', 'false');
    expect(screen.queryByRole('textbox', { name: 'Container' })).toBeNull();
    expect(screen.getByRole('searchbox', { name: 'Search for' })).toBeInTheDocument();
    expect(await screen.findByRole('list', { name: 'Search results' })).toBeInTheDocument();
    await userEvent.click(toggle);
    expect(toggle).toHaveAttribute('aria-expanded', 'true');
    expect(screen.getByRole('textbox', { name: 'Container' })).toHaveValue('ward a');
  });

  it('shows them as they are on a wider screen', async () => {
    signIn(NURSE);
    phone(false);
    mockApi({ [SEARCH]: { body: page([result()]) } });
    renderApp('/search?q=x');
    expect(await screen.findByRole('textbox', { name: 'Container' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /^Filters/ })).toBeNull();
  });
});
