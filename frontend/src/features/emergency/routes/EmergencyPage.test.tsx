import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { EmergencyView } from '../../../lib/api/types';
import { ADMIN, makeStoredFile, mockApi, never, renderApp, signIn } from '../../../test/utils';
import { STATUS_POLL_MS } from '../api/get-emergency-status';

const SESSION = 'GET /api/emergency/session';
const STATUS = 'GET /api/emergency/session/status';
const NEUTRAL = 'This emergency access link is not valid or has expired.';

function view(overrides: Partial<EmergencyView> = {}): EmergencyView {
  return {
    patientName: 'Jane Roe',
    patientDateOfBirth: '1980-02-03',
    containerName: 'ward a',
    folderName: 'p-1',
    expiresAt: new Date(Date.now() + 15 * 60_000).toISOString(),
    hasProfileImage: true,
    patient: null,
    files: [
      makeStoredFile({
        name: 'patient-profile.jpg',
        contentType: 'image/jpeg',
        contentLength: 2048,
        lastModified: '2026-01-05T09:00:00Z',
        isProfileImage: true,
      }),
      makeStoredFile({
        name: 'allergies & notes.txt',
        contentType: 'text/plain',
        contentLength: 1536,
        lastModified: '2026-01-06T09:00:00Z',
        isConvertedFromRtf: true,
        originalRtfFileName: 'allergies & notes.rtf',
        textState: 'ready',
      }),
    ],
    ...overrides,
  };
}

/** Press End access and confirm it. */
async function endAccess() {
  await userEvent.click(await screen.findByRole('button', { name: 'End access' }));
  await userEvent.click(within(screen.getByRole('alertdialog', { name: 'End emergency access?' })).getByRole('button', { name: 'End access' }));
}

describe('/emergency', () => {
  it('shows loading', async () => {
    mockApi({ [SESSION]: never });
    renderApp('/emergency');
    expect(await screen.findByText('Loading emergency information…')).toBeInTheDocument();
  });

  it.each([
    [404, { message: NEUTRAL }],
    [500, undefined],
    [401, { message: 'Something else' }],
  ])('shows the neutral page for a %s', async (status, body) => {
    mockApi({ [SESSION]: { status, body } });
    renderApp('/emergency');
    expect(await screen.findByRole('heading', { name: NEUTRAL })).toBeInTheDocument();
    expect(screen.getByTestId('location')).toHaveTextContent(/^\/emergency$/);
  });

  it('shows the neutral page when the server cannot be reached', async () => {
    vi.stubGlobal('fetch', vi.fn().mockRejectedValue(new TypeError('offline')));
    renderApp('/emergency');
    expect(await screen.findByRole('heading', { name: NEUTRAL })).toBeInTheDocument();
  });

  it("shows the folder's patient as staff see it: name, date of birth and record number", async () => {
    mockApi({
      [SESSION]: { body: view({ patient: { name: 'Jane Q. Roe', dateOfBirth: '1980-02-04', recordNumber: 'MRN-7' } }) },
    });
    renderApp('/emergency');
    expect(await screen.findByRole('heading', { name: 'Jane Q. Roe', level: 1 })).toBeInTheDocument();
    expect(screen.getByText('Date of birth').nextElementSibling).toHaveTextContent('04 Feb 1980');
    expect(screen.getByText('Record number').nextElementSibling).toHaveTextContent('MRN-7');
  });

  it('shows the photo, name, date of birth, expiry and files, read-only', async () => {
    const api = mockApi({ [SESSION]: { body: view() } });
    renderApp('/emergency');
    expect(await screen.findByRole('heading', { name: 'Jane Roe', level: 1 })).toBeInTheDocument();
    expect(screen.getByRole('img', { name: 'Photo of Jane Roe' })).toHaveAttribute('src', '/api/blobs/ward%20a/p-1/profile-image');
    expect(screen.getByText('Date of birth').nextElementSibling).toHaveTextContent(/1980/);
    expect(screen.getByText('Access ends')).toBeInTheDocument();
    expect(screen.getByRole('timer', { name: 'Time remaining' })).toHaveTextContent(/^1[45]:\d\d$/);
    const files = screen.getByRole('list', { name: 'Patient files' });
    const link = within(files).getByRole('link', { name: /allergies & notes\.txt/ });
    expect(link).toHaveAttribute('href', '/api/blobs/ward%20a/p-1/allergies%20%26%20notes.txt/view');
    expect(link).toHaveAttribute('target', '_blank');
    expect(link).toHaveAttribute('rel', 'noopener noreferrer');
    expect(link.closest('li')).toHaveTextContent('1.50 KB');
    expect(link.closest('li')).toHaveTextContent('Modified');
    expect(within(files).getByRole('link', { name: /patient-profile\.jpg/ })).toBeInTheDocument();
    // Read-only: no upload, no delete.
    expect(screen.queryByRole('button', { name: /delete|upload/i })).not.toBeInTheDocument();
    expect(document.querySelector('input[type="file"]')).toBeNull();
    expect(api.calls[0]).toMatchObject({ method: 'GET', path: '/api/emergency/session', token: null });
    expect(screen.queryByRole('navigation', { name: 'Main navigation' })).not.toBeInTheDocument();
  });

  it('works beside a staff session without sending its token or applying the 401 rule', async () => {
    signIn(ADMIN);
    const api = mockApi({ [SESSION]: { status: 401, body: { message: 'x' } } });
    renderApp('/emergency');
    expect(await screen.findByRole('heading', { name: NEUTRAL })).toBeInTheDocument();
    expect(api.calls[0]!.token).toBeNull();
    expect(window.localStorage.getItem('token')).not.toBeNull();
    expect(screen.getByTestId('location')).toHaveTextContent(/^\/emergency$/);
  });

  it('leaves out the photo without one, or when it fails to load; says when there are no files', async () => {
    mockApi({ [SESSION]: { body: view({ hasProfileImage: false, patientDateOfBirth: null, files: [] }) } });
    const first = renderApp('/emergency');
    await screen.findByRole('heading', { name: 'Jane Roe' });
    expect(screen.queryByRole('img')).not.toBeInTheDocument();
    expect(screen.getByText('Not recorded')).toBeInTheDocument();
    expect(screen.getByText('No files in this patient folder.')).toBeInTheDocument();
    first.unmount();

    mockApi({ [SESSION]: { body: view() } });
    renderApp('/emergency');
    const img = await screen.findByRole('img', { name: 'Photo of Jane Roe' });
    act(() => {
      img.dispatchEvent(new Event('error'));
    });
    expect(screen.queryByRole('img', { name: 'Photo of Jane Roe' })).not.toBeInTheDocument();
  });

  it('counts down live and shows the expired state at zero', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    try {
      mockApi({ [SESSION]: { body: view({ expiresAt: new Date(Date.now() + 3_000).toISOString() }) } });
      renderApp('/emergency');
      const timer = await screen.findByRole('timer', { name: 'Time remaining' });
      expect(timer).toHaveTextContent(/^0:0[23]$/);
      act(() => vi.advanceTimersByTime(1000));
      expect(screen.getByRole('timer')).toHaveTextContent(/^0:0[12]$/);
      act(() => vi.advanceTimersByTime(3000));
      expect(screen.getByRole('heading', { name: 'Emergency access has expired' })).toBeInTheDocument();
      expect(screen.getByText(NEUTRAL)).toBeInTheDocument();
      expect(screen.queryByText('Jane Roe')).not.toBeInTheDocument();
    } finally {
      vi.useRealTimers();
    }
  });

  it('asks every few seconds whether its grant is open, and ends when it is not', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    try {
      const api = mockApi({ [SESSION]: { body: view() }, [STATUS]: { body: { open: true } } });
      renderApp('/emergency');
      await screen.findByRole('heading', { name: 'Jane Roe', level: 1 });
      const polls = () => api.calls.filter((c) => c.path === '/api/emergency/session/status');
      expect(polls()).toHaveLength(0);
      await act(() => vi.advanceTimersByTimeAsync(STATUS_POLL_MS));
      expect(polls()).toHaveLength(1);
      expect(polls()[0]!.token).toBeNull();
      expect(screen.getByRole('heading', { name: 'Jane Roe', level: 1 })).toBeInTheDocument();
      // A server error is no answer: the page stays and asks again.
      api.set(STATUS, { status: 503 });
      await act(() => vi.advanceTimersByTimeAsync(STATUS_POLL_MS));
      expect(screen.getByRole('heading', { name: 'Jane Roe', level: 1 })).toBeInTheDocument();
      // An admin disconnected the token: the neutral 404, and the page ends without a reload.
      api.set(STATUS, { status: 404, body: { message: NEUTRAL } });
      await act(() => vi.advanceTimersByTimeAsync(STATUS_POLL_MS));
      expect(await screen.findByRole('heading', { name: 'Emergency access ended' })).toBeInTheDocument();
      expect(screen.queryByText('Jane Roe')).not.toBeInTheDocument();
      expect(screen.queryByRole('img')).not.toBeInTheDocument();
      expect(screen.queryByRole('timer')).not.toBeInTheDocument();
      expect(screen.getByText(/call the phone number on the token/)).toBeInTheDocument();
    } finally {
      vi.useRealTimers();
    }
  });

  it('stays on the expired page when the poll then finds the grant gone', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    try {
      const expiresAt = new Date(Date.now() + 2_000).toISOString();
      mockApi({ [SESSION]: { body: view({ expiresAt }) }, [STATUS]: { status: 404, body: { message: NEUTRAL } } });
      renderApp('/emergency');
      await screen.findByRole('heading', { name: 'Jane Roe', level: 1 });
      await act(() => vi.advanceTimersByTimeAsync(STATUS_POLL_MS + 1000));
      expect(await screen.findByRole('heading', { name: 'Emergency access has expired' })).toBeInTheDocument();
    } finally {
      vi.useRealTimers();
    }
  });

  it('ends access', async () => {
    const api = mockApi({
      [SESSION]: { body: view() },
      'DELETE /api/emergency/session': { body: { message: 'Emergency access ended.' } },
    });
    renderApp('/emergency');
    await userEvent.click(await screen.findByRole('button', { name: 'End access' }));
    // It asks first; Cancel keeps the page.
    const confirm = screen.getByRole('alertdialog', { name: 'End emergency access?' });
    expect(within(confirm).getByRole('button', { name: 'Cancel' })).toHaveFocus();
    await userEvent.click(within(confirm).getByRole('button', { name: 'Cancel' }));
    expect(api.calls.some((c) => c.method === 'DELETE')).toBe(false);
    expect(screen.getByRole('heading', { name: 'Jane Roe' })).toBeInTheDocument();
    await endAccess();
    expect(await screen.findByRole('heading', { name: 'Emergency access ended' })).toBeInTheDocument();
    expect(screen.queryByText('Jane Roe')).not.toBeInTheDocument();
    expect(api.calls.find((c) => c.method === 'DELETE')).toMatchObject({ path: '/api/emergency/session', token: null });
  });

  it('treats ending an access that is already gone as ended; explains other failures', async () => {
    const api = mockApi({
      [SESSION]: { body: view() },
      'DELETE /api/emergency/session': { status: 500 },
    });
    renderApp('/emergency');
    await endAccess();
    expect(await screen.findByRole('alert')).toHaveTextContent('Could not end access. Please try again.');
    api.set('DELETE /api/emergency/session', { status: 404, body: { message: NEUTRAL } });
    await endAccess();
    await waitFor(() => expect(screen.getByRole('heading', { name: 'Emergency access ended' })).toBeInTheDocument());
  });
});
