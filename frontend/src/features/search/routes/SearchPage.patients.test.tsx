/** Search (issue 50): results under their patient, opening a result in the viewer, the filters on a phone. */
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { lastSocket, sockets } from '../../../test/socketMock';
import { ADMIN, mockApi, NURSE, renderApp, signIn } from '../../../test/utils';
import { DOCTOR, SEARCH, result, page, searches, REFETCH_WAIT_MS, location, loadScreen } from './searchTestKit';

beforeAll(loadScreen);

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
