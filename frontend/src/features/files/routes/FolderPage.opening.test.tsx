/** The folder page: opening a file's original (a tab, a blocked popup, an expired session, iOS),
 * versions, and the trash (admins). */
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { trackedViewerWindowCount, closeViewerWindows } from '../../../lib/viewerWindows';
import { ADMIN, mockApi, renderApp, signIn } from '../../../test/utils';
import { DOCTOR, ASSISTANT, PAGE, ADMIN_PAGE, LIST, TRASH, T, file, listing, openOriginal, loadScreen } from './folderPageTestKit';

beforeAll(loadScreen);

describe('folder page: opening files', () => {
  let viewer: { location: { href: string }; close: ReturnType<typeof vi.fn>; closed: boolean; opener: unknown };

  beforeEach(() => {
    signIn(DOCTOR);
    viewer = { location: { href: '' }, close: vi.fn(), closed: false, opener: window };
    closeViewerWindows();
  });

  it('opens a blank tab in the click, then sends it to the signed link', async () => {
    const open = vi.spyOn(window, 'open').mockReturnValue(viewer as unknown as Window);
    const api = mockApi({
      [LIST]: { body: listing },
      'GET /api/blobs/ward%20a/p-1/letter.txt/url': {
        body: { url: '/api/blobs/ward%20a/p-1/letter.txt/view?link=abc', expiresAt: T },
      },
    });
    renderApp(PAGE);
    await openOriginal('letter.txt');
    expect(open).toHaveBeenCalledWith('', '_blank');
    expect(viewer.opener).toBe(window); // kept: a window whose opener was cut cannot be closed
    await waitFor(() => expect(viewer.location.href).toBe('/api/blobs/ward%20a/p-1/letter.txt/view?link=abc'));
    expect(await screen.findByText('File opened in new tab')).toBeInTheDocument();
    expect(trackedViewerWindowCount()).toBe(1);
    const token = window.localStorage.getItem('token')!;
    expect(viewer.location.href).not.toContain(token);
    expect(api.calls.find((c) => c.path.endsWith('/url'))!.token).toBe(token);
  });

  it('says when the popup was blocked, for 7 seconds', async () => {
    vi.spyOn(window, 'open').mockReturnValue(null);
    mockApi({ [LIST]: { body: listing } });
    renderApp(PAGE);
    await userEvent.click(await screen.findByRole('button', { name: /^letter\.txt/ }));
    const button = within(await screen.findByRole('dialog', { name: 'letter.txt' })).getByRole('button', { name: 'Open original (new tab)' });
    vi.useFakeTimers();
    try {
      fireEvent.click(button);
      expect(screen.getByText('Popup blocked by browser. Please allow popups for this site and try again.')).toBeInTheDocument();
      act(() => vi.advanceTimersByTime(6999));
      expect(screen.getByText(/Popup blocked/)).toBeInTheDocument();
      act(() => vi.advanceTimersByTime(1));
      expect(screen.queryByText(/Popup blocked/)).not.toBeInTheDocument();
    } finally {
      vi.useRealTimers();
    }
  });

  it.each([
    [403, { message: "You don't have permission to do this." }, "You don't have permission to view this file."],
    [404, { message: 'File not found' }, 'Failed to open file'],
    [500, undefined, 'Failed to open file'],
    [400, { message: 'The link has expired.' }, 'Your session has expired. Please log in again.'],
  ])('closes the tab and explains a %s', async (status, body, message) => {
    vi.spyOn(window, 'open').mockReturnValue(viewer as unknown as Window);
    mockApi({ [LIST]: { body: listing }, 'GET /api/blobs/ward%20a/p-1/letter.txt/url': { status, body } });
    renderApp(PAGE);
    await openOriginal('letter.txt');
    expect(await screen.findByText(message)).toBeInTheDocument();
    expect(viewer.close).toHaveBeenCalled();
  });

  it('treats a 401 as an expired session', async () => {
    vi.spyOn(window, 'open').mockReturnValue(viewer as unknown as Window);
    mockApi({
      [LIST]: { body: listing },
      'GET /api/blobs/ward%20a/p-1/letter.txt/url': { status: 401, body: { message: 'Unauthorized' } },
    });
    renderApp(PAGE);
    await openOriginal('letter.txt');
    await waitFor(() => expect(screen.getByTestId('location')).toHaveTextContent('/login?session=expired'));
    expect(await screen.findByText('Your session has expired or your account has been deleted. Please log in again.')).toBeInTheDocument();
    expect(viewer.close).toHaveBeenCalled();
    // The login page says it once: no notification of the signed-out session follows it there.
    expect(screen.queryByText('Your session has expired. Please log in again.')).not.toBeInTheDocument();
  });

  it('asks to log in again when the token is gone', async () => {
    const open = vi.spyOn(window, 'open');
    mockApi({ [LIST]: { body: listing } });
    renderApp(PAGE);
    await userEvent.click(await screen.findByRole('button', { name: /^letter\.txt/ }));
    const button = within(await screen.findByRole('dialog', { name: 'letter.txt' })).getByRole('button', { name: 'Open original (new tab)' });
    window.localStorage.removeItem('token');
    await userEvent.click(button);
    expect(await screen.findByText('No authentication token found. Please log in again.')).toBeInTheDocument();
    expect(open).not.toHaveBeenCalled();
  });

  it('uses this tab on iOS Safari, with a notice and Tap to Open', async () => {
    vi.spyOn(navigator, 'userAgent', 'get').mockReturnValue(
      'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
    );
    const open = vi.spyOn(window, 'open');
    mockApi({ [LIST]: { body: listing }, 'GET /api/blobs/ward%20a/p-1/letter.txt/url': { status: 500 } });
    renderApp(PAGE);
    expect(await screen.findByText(/On iPhone and iPad, files open in this tab\. Tap to Open a file/)).toBeInTheDocument();
    const button = screen.getByRole('button', { name: /^letter\.txt/ });
    expect(button).toHaveAttribute('title', 'Tap to Open');
    await openOriginal('letter.txt');
    expect(open).not.toHaveBeenCalled();
    expect(await screen.findByText("Unable to open file. This may be due to Safari's security restrictions.")).toBeInTheDocument();
  });
});

describe('folder page: versions', () => {
  const versions = {
    versions: [
      { versionId: 'v2', contentLength: 20, contentType: 'text/plain', lastModified: '2026-01-03T10:00:00Z', uploadedBy: { name: 'Nina Nurse', role: 'nurse' }, current: true },
      { versionId: 'v1', contentLength: 10, contentType: 'text/plain', lastModified: T, uploadedBy: { name: 'Dana Doctor', role: 'doctor' }, current: false },
    ],
  };
  const withVersions = { blobs: [file({ name: 'notes.txt', versionCount: 2 })], hasProfileImage: false };

  it('shows the version count, lists versions with who and when, and restores one after a confirmation', async () => {
    signIn(DOCTOR);
    const api = mockApi({
      [LIST]: { body: withVersions },
      'GET /api/blobs/ward%20a/p-1/notes.txt/versions': { body: versions },
      'POST /api/blobs/ward%20a/p-1/notes.txt/versions/v1/restore': { body: { message: 'Version restored successfully' } },
    });
    renderApp(PAGE);
    expect(await screen.findByText('2 versions')).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Versions of notes.txt' }));
    const list = await screen.findByRole('list', { name: 'Versions of notes.txt' });
    const rows = within(list).getAllByRole('listitem');
    expect(rows[0]).toHaveTextContent('Current');
    expect(rows[0]).toHaveTextContent('Uploaded by Nina Nurse (nurse)');
    expect(rows[1]).toHaveTextContent('Uploaded by Dana Doctor (doctor)');
    expect(within(rows[0]!).queryByRole('button', { name: /^Restore/ })).not.toBeInTheDocument();
    await userEvent.click(within(rows[1]!).getByRole('button', { name: /^Restore/ }));
    const dialog = screen.getByRole('alertdialog', { name: 'Restore this version?' });
    expect(dialog).toHaveTextContent('The current content is kept as a version.');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Restore' }));
    expect(await screen.findByText('Version restored successfully')).toBeInTheDocument();
    expect(api.calls.some((c) => c.method === 'POST' && c.path.endsWith('/versions/v1/restore'))).toBe(true);
  });

  it('lets assistants open versions but not restore them', async () => {
    signIn(ASSISTANT);
    mockApi({ [LIST]: { body: withVersions }, 'GET /api/blobs/ward%20a/p-1/notes.txt/versions': { body: versions } });
    renderApp(PAGE);
    await userEvent.click(await screen.findByRole('button', { name: 'Versions of notes.txt' }));
    const list = await screen.findByRole('list', { name: 'Versions of notes.txt' });
    expect(within(list).getAllByRole('button', { name: /^Open/ })).toHaveLength(2);
    expect(within(list).queryByRole('button', { name: /^Restore/ })).not.toBeInTheDocument();
  });
});

describe('folder page: the trash (admins)', () => {
  beforeEach(() => signIn(ADMIN));
  const trash = {
    trashDays: 30,
    blobs: [
      {
        name: 'old.pdf',
        versionCount: 2,
        contentLength: 10,
        contentType: 'application/pdf',
        isProfileImage: false,
        deletedAt: T,
        deletedBy: { name: 'Ada Admin', role: 'admin' },
        purgeAfter: '2026-02-01T10:00:00Z',
      },
    ],
  };

  it('lists deleted files, restores one, and purges only once DELETE is typed', async () => {
    const api = mockApi({
      [LIST]: { body: listing },
      [TRASH]: { body: trash },
      'POST /api/blobs/ward%20a/p-1/trash/old.pdf/restore': { body: { message: 'File restored successfully' } },
      'DELETE /api/blobs/ward%20a/p-1/trash/old.pdf': { body: { message: 'File deleted permanently' } },
    });
    renderApp(ADMIN_PAGE);
    const list = await screen.findByRole('list', { name: 'Deleted files' });
    expect(list).toHaveTextContent('by Ada Admin');
    expect(list).toHaveTextContent('Purged after');
    expect(list).toHaveTextContent('2 versions');
    await userEvent.click(within(list).getByRole('button', { name: 'Restore old.pdf' }));
    expect(await screen.findByText('File restored successfully')).toBeInTheDocument();
    await userEvent.click(within(list).getByRole('button', { name: 'Delete old.pdf permanently' }));
    const dialog = screen.getByRole('alertdialog', { name: 'Delete permanently' });
    await userEvent.type(within(dialog).getByLabelText('Type DELETE to confirm *'), 'delete');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Delete permanently' }));
    expect(dialog).toHaveTextContent('Please type DELETE to confirm.');
    expect(api.calls.some((c) => c.method === 'DELETE')).toBe(false);
    await userEvent.clear(within(dialog).getByLabelText('Type DELETE to confirm *'));
    await userEvent.type(within(dialog).getByLabelText('Type DELETE to confirm *'), 'DELETE');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Delete permanently' }));
    expect(await screen.findByText('File deleted permanently')).toBeInTheDocument();
    expect(api.calls.find((c) => c.method === 'DELETE')?.body).toEqual({ confirmation: 'DELETE' });
  });
});
