/** Search: the top bar's box and the results screen (words, filters, paging, messages). The
 * other, SearchPage.patients.test.tsx: results by patient, opening a result, phones. */
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { ADMIN, mockApi, never, NURSE, renderApp, signIn, type Handler } from '../../../test/utils';
import { DOCTOR, ASSISTANT, SEARCH, result, scan, page, searches, location, results, count, form, loadScreen } from './searchTestKit';

beforeAll(loadScreen);

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
