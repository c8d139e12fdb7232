/** The folder page: its list, roles, phones, the files' order, New and Skip to files. The other
 * FolderPage.*.test.tsx: uploads, the profile image and deleting, opening files, versions, trash. */
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import * as format from '../../../lib/format';
import { fileKeys } from '../../../lib/queryKeys';
import { ADMIN, mockApi, never, NURSE, renderApp, signIn } from '../../../test/utils';
import { DOCTOR, ASSISTANT, PAGE, ADMIN_PAGE, LIST, file, letter, scan, profile, listing, media, loadScreen } from './folderPageTestKit';

// Counts the file rows rendered: each writes its date once (the real function still does it).
vi.mock('../../../lib/format', async (original) => {
  const real = await original<typeof import('../../../lib/format')>();
  return { ...real, formatDateTime: vi.fn(real.formatDateTime) };
});

beforeAll(loadScreen);

describe('folder page: the files list', () => {
  it('shows loading', async () => {
    signIn(DOCTOR);
    mockApi({ [LIST]: never });
    renderApp(PAGE);
    expect(await screen.findByText('Loading files…')).toBeInTheDocument();
  });

  it('lists each file with its badges, date, size and content type', async () => {
    signIn(DOCTOR);
    mockApi({ [LIST]: { body: { blobs: [letter, scan, profile], hasProfileImage: true } } });
    renderApp(PAGE);
    const list = await screen.findByRole('list', { name: 'Patient files' });
    // By name (natural order), a wider screen's default.
    const all = within(list).getAllByRole('listitem');
    expect(all.map((row) => row.querySelector('.file-name')?.textContent)).toEqual(['letter.txt', 'patient-profile.jpg', 'scan.pdf']);
    const rows = [all[0], all[2], all[1]];
    expect(rows[0]).toHaveTextContent('letter.txt');
    expect(rows[0]).toHaveTextContent('TXT');
    expect(rows[0]).toHaveTextContent('Converted from RTF: letter.rtf');
    expect(rows[0]).toHaveTextContent('1.00 KB');
    expect(rows[0]).toHaveTextContent('text/plain; charset=utf-8');
    expect(rows[0]).toHaveTextContent(/Modified .*2026/);
    expect(rows[1]).toHaveTextContent('PDF');
    expect(rows[1]).toHaveTextContent('0 Bytes');
    expect(rows[2]).toHaveTextContent('IMAGE');
    expect(within(rows[2]!).getByText('Profile Image')).toBeInTheDocument();
    expect(screen.getByRole('heading', { name: 'p-1' })).toBeInTheDocument();
  });

  it("renders again only the row of the file a refetched listing changed: the rows' actions stay the same", async () => {
    signIn(DOCTOR);
    const api = mockApi({ [LIST]: { body: listing } });
    const { client } = renderApp(PAGE);
    const list = await screen.findByRole('list', { name: 'Patient files' });
    const rendered = vi.mocked(format.formatDateTime);
    rendered.mockClear();
    // A live event's refetch: a new version of scan.pdf, letter.txt as it was.
    api.set(LIST, { body: { ...listing, blobs: [letter, { ...scan, versionCount: 2 }] } });
    await act(() => client.invalidateQueries({ queryKey: fileKeys.list('ward a', 'p-1') }));
    await waitFor(() => expect(within(list).getByText('2 versions')).toBeInTheDocument());
    expect(rendered).toHaveBeenCalledTimes(1);
    expect(rendered.mock.calls[0]).toEqual([scan.lastModified]);
  });

  it('shows the empty state', async () => {
    signIn(DOCTOR);
    mockApi({ [LIST]: { body: { blobs: [], hasProfileImage: false } } });
    renderApp(PAGE);
    expect(await screen.findByText('No files found in this folder.')).toBeInTheDocument();
  });

  it('tells a doctor that an unassigned folder is not there for them, with the way back and no Try again', async () => {
    signIn(DOCTOR);
    mockApi({ [LIST]: { status: 404, body: { message: 'Folder not found' } } });
    renderApp(PAGE);
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('Folder not found or not assigned to you');
    expect(within(alert).getByRole('link', { name: 'Back to ward a' })).toHaveAttribute('href', '/containers/ward%20a');
    expect(within(alert).getByRole('link', { name: 'Back to Dashboard' })).toHaveAttribute('href', '/dashboard');
    expect(screen.queryByRole('button', { name: 'Try again' })).not.toBeInTheDocument();
    expect(screen.queryByRole('heading', { name: 'Upload Medical Files' })).not.toBeInTheDocument();
  });

  it("gives an admin the server's not-found message and the way back to storage", async () => {
    signIn(ADMIN);
    mockApi({ [LIST]: { status: 404, body: { message: 'Container not found' } } });
    renderApp(PAGE);
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('Container not found');
    expect(within(alert).getByRole('link', { name: 'Back to ward a' })).toHaveAttribute('href', '/admin/containers/ward%20a');
  });

  it("shows the server's message and Try again when loading fails otherwise", async () => {
    signIn(DOCTOR);
    mockApi({ [LIST]: { status: 503, body: { message: 'Storage is unavailable.' } } });
    renderApp(PAGE);
    expect(await screen.findByRole('alert')).toHaveTextContent('Storage is unavailable.');
    expect(screen.getByRole('button', { name: 'Try again' })).toBeInTheDocument();
  });

  it('goes back to the container page for staff and to storage for admins', async () => {
    signIn(DOCTOR);
    mockApi({ [LIST]: { body: listing } });
    const first = renderApp(PAGE);
    expect(await screen.findByRole('link', { name: '← Back to ward a' })).toHaveAttribute('href', '/containers/ward%20a');
    first.unmount();
    signIn(ADMIN);
    renderApp(ADMIN_PAGE);
    expect(await screen.findByRole('link', { name: '← Back to ward a' })).toHaveAttribute('href', '/admin/containers/ward%20a');
  });
});

describe('folder page: roles', () => {
  it('gives doctors the upload form and profile management but no Delete', async () => {
    signIn(DOCTOR);
    mockApi({ [LIST]: { body: listing } });
    renderApp(PAGE);
    expect(await screen.findByRole('heading', { name: 'Upload Medical Files' })).toBeInTheDocument();
    expect(screen.getByRole('heading', { name: 'Patient Profile Management' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Add Profile Image' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /^Delete/ })).not.toBeInTheDocument();
  });

  it('gives assistants neither the upload form nor profile management', async () => {
    signIn(ASSISTANT);
    mockApi({ [LIST]: { body: listing } });
    renderApp(PAGE);
    await screen.findByRole('list', { name: 'Patient files' });
    expect(screen.queryByRole('heading', { name: 'Upload Medical Files' })).not.toBeInTheDocument();
    expect(screen.queryByRole('heading', { name: 'Patient Profile Management' })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /^Delete/ })).not.toBeInTheDocument();
  });
});


describe('folder page: phones and touch', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('shows the files first on a phone, with upload and profile one tap away, and says Tap to Open', async () => {
    media(['(max-width: 640px)', '(pointer: coarse)']);
    signIn(DOCTOR);
    mockApi({ [LIST]: { body: listing } });
    renderApp(PAGE);
    await screen.findByRole('list', { name: 'Patient files' });
    expect(screen.queryByRole('heading', { name: 'Upload Medical Files' })).not.toBeInTheDocument();
    expect(screen.queryByRole('heading', { name: 'Patient Profile Management' })).not.toBeInTheDocument();
    expect(screen.getAllByText('Tap to Open').length).toBeGreaterThan(0);
    expect(screen.queryByText(/On iPhone and iPad/)).not.toBeInTheDocument(); // the iOS notice stays iOS-only
    const open = screen.getByRole('button', { name: 'Upload files' });
    expect(open).toHaveAttribute('aria-expanded', 'false');
    await userEvent.click(open);
    expect(open).toHaveAttribute('aria-expanded', 'true');
    expect(screen.getByRole('heading', { name: 'Upload Medical Files' })).toBeVisible();
    await userEvent.click(screen.getByRole('button', { name: 'Patient profile' }));
    expect(screen.queryByRole('heading', { name: 'Upload Medical Files' })).not.toBeInTheDocument();
  });

  it('keeps Click to open and both tools on a desktop', async () => {
    media([]);
    signIn(DOCTOR);
    mockApi({ [LIST]: { body: listing } });
    renderApp(PAGE);
    expect(await screen.findByRole('heading', { name: 'Upload Medical Files' })).toBeVisible();
    expect(screen.queryByRole('button', { name: 'Upload files' })).not.toBeInTheDocument();
    expect(screen.getAllByText('Click to open').length).toBeGreaterThan(0);
  });
});


describe('folder page: the files’ order, New since the last visit, Skip to files (issue 50)', () => {
  const VISIT = 'POST /api/blobs/ward%20a/p-1/visit';
  const older = file({ name: 'a-old.pdf', contentType: 'application/pdf', lastModified: '2026-01-01T08:00:00Z' });
  const newer = file({ name: 'b-new.txt', contentType: 'text/plain', lastModified: '2026-01-03T08:00:00Z' });
  const middle = file({ name: 'c-mid.png', contentType: 'image/png', lastModified: '2026-01-02T08:00:00Z' });
  const three = { blobs: [older, newer, middle], hasProfileImage: false };
  const names = async () => {
    const list = await screen.findByRole('list', { name: 'Patient files' });
    return within(list)
      .getAllByRole('listitem')
      .map((row) => row.querySelector('.file-name')?.textContent);
  };
  afterEach(() => vi.unstubAllGlobals());

  it('sorts by name, newest first or type, and remembers the choice for the user who made it', async () => {
    signIn(DOCTOR);
    mockApi({ [LIST]: { body: three } });
    const first = renderApp(PAGE);
    expect(await names()).toEqual(['a-old.pdf', 'b-new.txt', 'c-mid.png']);
    const select = screen.getByRole('combobox', { name: 'Sort by' });
    await userEvent.selectOptions(select, 'Newest first');
    expect(await names()).toEqual(['b-new.txt', 'c-mid.png', 'a-old.pdf']);
    await userEvent.selectOptions(select, 'Type');
    expect(await names()).toEqual(['a-old.pdf', 'c-mid.png', 'b-new.txt']); // PDF, PNG, TXT
    await userEvent.selectOptions(select, 'Newest first');
    first.unmount();

    // The same user again: newest first. Another user on this device: the default.
    const again = renderApp(PAGE);
    expect(await names()).toEqual(['b-new.txt', 'c-mid.png', 'a-old.pdf']);
    expect(screen.getByRole('combobox', { name: 'Sort by' })).toHaveValue('newest');
    again.unmount();
    signIn(NURSE);
    renderApp(PAGE);
    expect(await names()).toEqual(['a-old.pdf', 'b-new.txt', 'c-mid.png']);
  });

  it('lists the newest first on a phone when nothing was chosen', async () => {
    media(['(max-width: 640px)']);
    signIn(DOCTOR);
    mockApi({ [LIST]: { body: three } });
    renderApp(PAGE);
    expect(await names()).toEqual(['b-new.txt', 'c-mid.png', 'a-old.pdf']);
  });

  it('keeps the phone’s order when the phone is turned: the default is decided as the page opens', async () => {
    const listeners = new Set<() => void>();
    let narrow = true;
    vi.stubGlobal('matchMedia', (query: string) => ({
      get matches() {
        return query === '(max-width: 640px)' && narrow;
      },
      media: query,
      addEventListener: (_: string, listener: () => void) => listeners.add(listener),
      removeEventListener: (_: string, listener: () => void) => listeners.delete(listener),
    }));
    signIn(DOCTOR);
    mockApi({ [LIST]: { body: three } });
    renderApp(PAGE);
    expect(await names()).toEqual(['b-new.txt', 'c-mid.png', 'a-old.pdf']);
    // Turned to landscape, wider than a phone: the layout follows (the tools show), the list stays.
    act(() => {
      narrow = false;
      for (const listener of [...listeners]) listener();
    });
    expect(await screen.findByRole('heading', { name: 'Upload Medical Files' })).toBeVisible();
    expect(await names()).toEqual(['b-new.txt', 'c-mid.png', 'a-old.pdf']);
    expect(screen.getByRole('combobox', { name: 'Sort by' })).toHaveValue('newest');
  });

  it('follows a remembered choice on a phone too', async () => {
    media(['(max-width: 640px)']);
    signIn(DOCTOR);
    window.localStorage.setItem(`files.sort.${DOCTOR.id}`, 'name');
    mockApi({ [LIST]: { body: three } });
    renderApp(PAGE);
    expect(await names()).toEqual(['a-old.pdf', 'b-new.txt', 'c-mid.png']);
  });

  it('records the visit once and marks the files added since the last one as New, in words', async () => {
    signIn(DOCTOR);
    const api = mockApi({ [LIST]: { body: three }, [VISIT]: { body: { previousVisitAt: '2026-01-01T12:00:00Z' } } });
    renderApp(PAGE);
    const list = await screen.findByRole('list', { name: 'Patient files' });
    await waitFor(() => expect(within(list).getAllByText('New')).toHaveLength(2));
    const row = (name: string) => within(list).getByText(name).closest('li')!;
    expect(row('b-new.txt')).toHaveTextContent('New since your last visit');
    expect(row('c-mid.png')).toHaveTextContent('New since your last visit');
    expect(row('a-old.pdf')).not.toHaveTextContent('New');
    expect(api.calls.filter((c) => c.method === 'POST' && c.path.endsWith('/visit'))).toHaveLength(1);
  });

  it('marks nothing on a first visit, or when the visit could not be recorded', async () => {
    signIn(DOCTOR);
    mockApi({ [LIST]: { body: three }, [VISIT]: { body: { previousVisitAt: null } } });
    renderApp(PAGE);
    await screen.findByRole('list', { name: 'Patient files' });
    await waitFor(() => expect(screen.queryByText('New')).toBeNull());
  });

  it('offers Skip to files first, which takes the focus to the first file', async () => {
    signIn(DOCTOR);
    mockApi({ [LIST]: { body: three } });
    renderApp(PAGE);
    await screen.findByRole('list', { name: 'Patient files' });
    const skip = screen.getByRole('link', { name: 'Skip to files' });
    const main = screen.getByRole('main');
    // The first control of the page's own content.
    expect(main.querySelector('a, button, input, select, textarea')).toBe(skip);
    await userEvent.click(skip);
    expect(screen.getByRole('button', { name: /^a-old\.pdf/ })).toHaveFocus();
  });
});
