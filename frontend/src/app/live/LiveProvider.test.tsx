import { act, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { LiveEvent } from '../../lib/server.gen';
import { getToken, setToken } from '../../lib/session';
import { trackedViewerWindowCount, trackViewerWindow } from '../../lib/viewerWindows';
import { io, lastSocket, sockets } from '../../test/socketMock';
import { ADMIN, makeToken, makeUser, makeUserSummary, mockApi, NURSE, renderApp, signIn } from '../../test/utils';
import { emergencyMessage, quarantinedMessage, refusedMessage, retryDelay } from './LiveProvider';

const stats = { totalUsers: 1, doctors: 1, nurses: 0, assistants: 0 };

function arrangeApi() {
  const api = mockApi({
    'GET /api/users/dashboard': { body: { users: [makeUser({ id: 2, name: 'Dana Doctor' })], stats } },
    'GET /api/assignments/my-assignments': { body: { assignments: [] } },
    'GET /api/admin/scanning': { body: { configured: true, available: true, unavailable: 'refuse', quarantined: 0, held: 0 } },
    'GET /api/auth/validate-token': { body: { valid: true, user: { ...ADMIN, userId: ADMIN.id } } },
    'POST /api/auth/logout': { body: { message: 'Logged out successfully' } },
  });
  const count = (method: string, path: string) => api.calls.filter((c) => c.method === method && c.path === path).length;
  return { api, count };
}

const location = () => screen.getByTestId('location');

/** The admin dashboard, signed in, with its live socket connected. */
async function adminDashboard() {
  const { api, count } = arrangeApi();
  const token = signIn(ADMIN);
  const rendered = renderApp('/dashboard');
  await screen.findByRole('heading', { name: 'Admin Dashboard' });
  const socket = await waitFor(() => lastSocket()); // made in an effect, maybe just after
  act(() => socket.serverConnect());
  await screen.findByText('Live updates on');
  return { ...rendered, api, count, token, socket };
}

describe('LiveProvider', () => {
  it('makes no connection without a session', async () => {
    arrangeApi();
    renderApp('/dashboard');
    await waitFor(() => expect(location()).toHaveTextContent(/^\/login$/));
    expect(io).not.toHaveBeenCalled();
  });

  it('makes no connection on /login', async () => {
    arrangeApi();
    renderApp('/login?session=expired');
    await screen.findByRole('button', { name: 'Sign in' });
    expect(io).not.toHaveBeenCalled();
  });

  it.each(['/patients/verify/ABC?s=12', '/emergency'])('makes no connection on %s, even with a session', async (path) => {
    arrangeApi();
    signIn(ADMIN);
    renderApp(path);
    await screen.findAllByRole('heading');
    expect(io).not.toHaveBeenCalled();
  });

  it('connects once signed in: websocket only, the token in auth, reconnection with backoff', async () => {
    arrangeApi();
    const token = signIn(NURSE);
    renderApp('/dashboard');
    await screen.findByRole('heading', { name: `Welcome, ${NURSE.name}` });
    // The connection is made in an effect, which may run just after the heading is shown.
    await waitFor(() => expect(io).toHaveBeenCalledTimes(1));
    const socket = lastSocket();
    expect(socket.url).toBe(window.location.origin);
    expect(socket.options).toMatchObject({
      path: '/socket.io',
      transports: ['websocket'],
      auth: { token },
      reconnection: true,
      reconnectionDelay: 500,
      reconnectionDelayMax: 10_000,
    });
    expect(socket.options.randomizationFactor).toBeGreaterThan(0);
    expect(io).toHaveBeenCalledTimes(1); // once, not again on a later render
  });

  it('keeps one connection while moving between screens', async () => {
    const { socket } = await adminDashboard();
    mockApi({ 'GET /api/users': { body: { users: [] } } });
    await userEvent.click(screen.getByRole('link', { name: /Users/ }));
    await screen.findByRole('heading', { name: 'Users' });
    expect(sockets).toHaveLength(1);
    expect(socket.disconnect).not.toHaveBeenCalled();
  });

  it('shows the connection state in the top bar: connecting, live, reconnecting, off', async () => {
    const { api } = arrangeApi();
    signIn(ADMIN);
    renderApp('/dashboard');
    await screen.findByText('Connecting…');
    const socket = lastSocket();
    const region = screen.getByText('Connecting…').closest('[aria-live]');
    expect(region).toHaveAttribute('aria-live', 'polite');
    expect(region).toHaveAttribute('role', 'status');

    act(() => socket.serverConnect());
    expect(await screen.findByText('Live updates on')).toBeInTheDocument();
    act(() => socket.serverDrop());
    expect(await screen.findByText('Reconnecting…')).toBeInTheDocument();
    act(() => socket.serverConnect());
    expect(await screen.findByText('Live updates on')).toBeInTheDocument();

    // Refused while the session is still valid (e.g. the database was down): off, then retried.
    act(() => socket.serverRefuse('Please try again.'));
    expect(await screen.findByText('Live updates off')).toBeInTheDocument();
    await waitFor(() => expect(api.calls.some((c) => c.path === '/api/auth/validate-token')).toBe(true));
    await waitFor(() => expect(socket.connect).toHaveBeenCalled(), { timeout: 2000 });
    expect(getToken()).not.toBeNull();
  });

  it('expires the session when a refused connection turns out to have no valid session', async () => {
    const { api, socket } = await adminDashboard();
    api.set('GET /api/auth/validate-token', { status: 401, body: { message: 'Session expired.' } });
    act(() => socket.serverRefuse('Session expired.'));
    await waitFor(() => expect(location()).toHaveTextContent('/login?session=expired'));
    expect(getToken()).toBeNull();
  });

  it.each([
    [LiveEvent.FILE_UPLOADED, { container: 'ward-a', folder: 'p-1', name: 'x.txt' }, [['files', 'ward-a', 'p-1'], ['assignments', 'mine', 'stats']]],
    [LiveEvent.FILE_DELETED, { container: 'ward-a', folder: 'p-1', name: 'x.txt' }, [['files', 'ward-a', 'p-1'], ['assignments', 'mine', 'stats']]],
    [LiveEvent.PROFILE_CHANGED, { container: 'ward-a', folder: 'p-1' }, [['files', 'ward-a', 'p-1'], ['assignments', 'mine', 'stats']]],
    [LiveEvent.USERS_CHANGED, { userId: 4 }, [['users']]],
    [LiveEvent.TOKEN_ASSIGNED, { tokenId: 'T', container: 'ward-a', folder: 'p-1' }, [['smart-tokens']]],
    [LiveEvent.TOKEN_DELETED, { tokenId: 'T' }, [['smart-tokens']]],
    [LiveEvent.AUDIT_CREATED, { id: 5, operation: 'login' }, [['audit-logs']]],
    [
      LiveEvent.ASSIGNMENTS_CHANGED,
      { userId: 4 },
      [['assignments', 'mine'], ['assignments', 'user', 4], ['users', 'list'], ['users', 'dashboard']],
    ],
  ])('%s invalidates its query keys', async (event, payload, keys) => {
    const { client, socket } = await adminDashboard();
    const invalidate = vi.spyOn(client, 'invalidateQueries');
    act(() => socket.serverEmit(event, payload));
    expect(invalidate.mock.calls.map(([filters]) => filters?.queryKey)).toEqual(keys);
  });

  it('refetches what is on screen: the admin dashboard after users:changed', async () => {
    const { count, socket } = await adminDashboard();
    const before = count('GET', '/api/users/dashboard');
    act(() => socket.serverEmit(LiveEvent.USERS_CHANGED, { userId: 9 }));
    await waitFor(() => expect(count('GET', '/api/users/dashboard')).toBe(before + 1));
  });

  it('refetches what is on screen after reconnecting (events may have been missed), not on the first connect', async () => {
    const { count, socket } = await adminDashboard();
    const before = count('GET', '/api/users/dashboard');
    act(() => socket.serverDrop());
    await screen.findByText('Reconnecting…');
    act(() => socket.serverConnect());
    await waitFor(() => expect(count('GET', '/api/users/dashboard')).toBe(before + 1));
    expect(before).toBe(1);
  });

  it('refetches once per reconnection, each time the connection came back', async () => {
    const { client, count, socket } = await adminDashboard();
    const invalidate = vi.spyOn(client, 'invalidateQueries');
    for (const round of [1, 2]) {
      const before = count('GET', '/api/users/dashboard');
      act(() => socket.serverDrop());
      act(() => socket.serverConnect());
      await waitFor(() => expect(count('GET', '/api/users/dashboard')).toBe(before + 1));
      expect(invalidate).toHaveBeenCalledTimes(round);
    }
  });

  it('refetches when the first connection succeeds only after failed attempts (an instance died)', async () => {
    const { count } = arrangeApi();
    signIn(ADMIN);
    renderApp('/dashboard');
    await screen.findByRole('heading', { name: 'Admin Dashboard' });
    const socket = await waitFor(() => lastSocket());
    const before = count('GET', '/api/users/dashboard');
    // The first attempt fails (the instance it reached was killed); the manager retries.
    act(() => socket.serverDrop('transport error'));
    await screen.findByText('Reconnecting…');
    act(() => socket.serverConnect());
    await waitFor(() => expect(count('GET', '/api/users/dashboard')).toBe(before + 1));
  });

  it('refetches after a refused connection is retried and accepted (the database was down)', async () => {
    const { count, socket } = await adminDashboard();
    const before = count('GET', '/api/users/dashboard');
    act(() => socket.serverRefuse('Please try again.'));
    await waitFor(() => expect(socket.connect).toHaveBeenCalled(), { timeout: 2000 });
    act(() => socket.serverConnect());
    await waitFor(() => expect(count('GET', '/api/users/dashboard')).toBe(before + 1));
  });

  it('refetches what is on screen on live:resync (the server lost its link to the other instances)', async () => {
    const { client, count, socket } = await adminDashboard();
    const invalidate = vi.spyOn(client, 'invalidateQueries');
    const before = count('GET', '/api/users/dashboard');
    act(() => socket.serverEmit(LiveEvent.LIVE_RESYNC, {}));
    await waitFor(() => expect(count('GET', '/api/users/dashboard')).toBe(before + 1));
    expect(invalidate.mock.calls.map(([filters]) => filters?.queryKey)).toEqual([[]]);
  });

  it('puts new audit entries at the top of /audit-logs without pressing Refresh', async () => {
    const entry = (id: number, operation: string) => ({ id, name: 'Ada Admin', role: 'admin', operation, timestamp: '2025-01-02T10:00:00Z' });
    const logs = [entry(1, 'login')];
    mockApi({
      'GET /api/users': { body: { users: [] } },
      'GET /api/blobs/audit': () => ({ body: { auditLogs: [...logs], nextCursor: null } }),
    });
    signIn(ADMIN);
    renderApp('/audit-logs');
    await screen.findByText('login');
    act(() => lastSocket().serverConnect());
    logs.unshift(entry(2, 'user_create'));
    act(() => lastSocket().serverEmit(LiveEvent.AUDIT_CREATED, { id: 2, operation: 'user_create' }));
    await screen.findByText('user_create');
    const rows = screen.getAllByRole('row').slice(1);
    expect(rows[0]).toHaveTextContent('user_create');
    expect(rows[1]).toHaveTextContent('login');
    expect(screen.getByRole('button', { name: /Refresh/ })).toBeInTheDocument();
  });

  it('shows the new folder count on /assignments after assignments:changed, without pressing Refresh', async () => {
    let folderCount = 1;
    mockApi({ 'GET /api/users': () => ({ body: { users: [makeUserSummary({ id: 4, name: 'Nora Nurse', role: 'nurse', folderCount })] } }) });
    signIn(ADMIN);
    renderApp('/assignments');
    const cell = () => screen.getByText('Nora Nurse').closest('tr')!.querySelectorAll('td')[3];
    await screen.findByText('Nora Nurse');
    expect(cell()).toHaveTextContent(/^1$/);
    act(() => lastSocket().serverConnect());
    folderCount = 3;
    act(() => lastSocket().serverEmit(LiveEvent.ASSIGNMENTS_CHANGED, { userId: 4 }));
    await waitFor(() => expect(cell()).toHaveTextContent(/^3$/));
  });

  it('session:revoked does what a 401 does: token cleared, viewers closed, /login?session=expired', async () => {
    const { socket } = await adminDashboard();
    const viewer = { closed: false, close: vi.fn() } as unknown as Window;
    trackViewerWindow(viewer);
    act(() => socket.serverEmit(LiveEvent.SESSION_REVOKED, { reason: 'account-deleted' }));
    await waitFor(() => expect(location()).toHaveTextContent('/login?session=expired'));
    expect(getToken()).toBeNull();
    expect(viewer.close).toHaveBeenCalled();
    expect(trackedViewerWindowCount()).toBe(0);
    expect(socket.disconnect).toHaveBeenCalled();
    expect(await screen.findByText('Your session has expired or your account has been deleted. Please log in again.')).toBeInTheDocument();
  });

  it.each([
    ['password-changed', 'Your password was changed by an administrator. Please log in again.'],
    ['logout-all', 'You were signed out from another session. Please log in again.'],
    ['expired', 'Your session has expired or your account has been deleted. Please log in again.'],
  ])('session:revoked for %s: the login page says why', async (reason, words) => {
    const { socket } = await adminDashboard();
    act(() => socket.serverEmit(LiveEvent.SESSION_REVOKED, { reason }));
    expect(await screen.findByText(words)).toBeInTheDocument();
    expect(location()).toHaveTextContent('/login?session=expired');
    expect(getToken()).toBeNull();
  });

  it('shows an admin a notification when emergency access opens', async () => {
    const { socket } = await adminDashboard();
    act(() => socket.serverEmit(LiveEvent.EMERGENCY_OPENED, { tokenId: 'T', container: 'ward-a', folder: 'p-1' }));
    const toast = await screen.findByText('Emergency access opened for ward-a/p-1');
    expect(toast.closest('[aria-live]')).toHaveAttribute('aria-label', 'Notifications');
  });

  it('alerts an admin when a tap is refused', async () => {
    const { socket } = await adminDashboard();
    act(() => socket.serverEmit(LiveEvent.EMERGENCY_REFUSED, { tokenId: 'AAAAAAAA11111111BBBBBBBB22222222', reason: 'replayed' }));
    const toast = await screen.findByText('Emergency access refused for token AAAAAAAA...22222222: replayed');
    expect(toast.closest('[role="alert"]')).not.toBeNull();
  });

  it('alerts an admin when a file was quarantined, and refetches the scanning counts', async () => {
    const { socket, api } = await adminDashboard();
    const card = await screen.findByRole('region', { name: 'Malware scanning' });
    await waitFor(() => expect(card).toHaveTextContent('Quarantined0'));
    api.set('GET /api/admin/scanning', { body: { configured: true, available: true, unavailable: 'refuse', quarantined: 1, held: 0 } });
    act(() =>
      socket.serverEmit(LiveEvent.FILE_QUARANTINED, { id: 4, signature: 'Eicar-Test-Signature', container: 'ward-a', folder: 'p-1', name: 'x.txt' }),
    );
    const toast = await screen.findByText('A file was quarantined: Eicar-Test-Signature in p-1');
    expect(toast.closest('[role="alert"]')).not.toBeNull();
    await waitFor(() => expect(card).toHaveTextContent('Quarantined1'));
  });

  it('shows no emergency or quarantine notification to staff', async () => {
    arrangeApi();
    signIn(NURSE);
    renderApp('/dashboard');
    await screen.findByRole('heading', { name: `Welcome, ${NURSE.name}` });
    act(() => lastSocket().serverConnect());
    act(() => lastSocket().serverEmit(LiveEvent.EMERGENCY_OPENED, { tokenId: 'T', container: 'ward-a', folder: 'p-1' }));
    act(() => lastSocket().serverEmit(LiveEvent.EMERGENCY_REFUSED, { tokenId: 'T', reason: 'replayed' }));
    act(() => lastSocket().serverEmit(LiveEvent.FILE_QUARANTINED, { id: 1, signature: 'Eicar-Test-Signature', container: 'ward-a', folder: 'p-1' }));
    await screen.findByText('Live updates on');
    expect(screen.queryByText(/A file was quarantined/)).not.toBeInTheDocument();
    expect(screen.queryByText(/Emergency access opened/)).not.toBeInTheDocument();
    expect(screen.queryByText(/Emergency access refused/)).not.toBeInTheDocument();
  });

  it('disconnects on logout, before the logout request (its session:revoked is not an expiry)', async () => {
    const { api, socket } = await adminDashboard();
    let disconnectedFirst = false;
    api.set('POST /api/auth/logout', () => {
      disconnectedFirst = socket.disconnect.mock.calls.length > 0;
      return { body: { message: 'Logged out successfully' } };
    });
    await userEvent.click(screen.getByRole('button', { name: 'Logout' }));
    await waitFor(() => expect(location()).toHaveTextContent(/^\/login$/));
    expect(disconnectedFirst).toBe(true);
    expect(socket.listenerCount(LiveEvent.SESSION_REVOKED)).toBe(0);
    expect(sockets).toHaveLength(1);
  });

  it('reconnects with the new token when the token changes', async () => {
    const { socket } = await adminDashboard();
    const other = makeToken({ ...ADMIN, id: 5, name: 'Other Admin', username: 'other' });
    act(() => setToken(other));
    await waitFor(() => expect(sockets).toHaveLength(2));
    expect(socket.disconnect).toHaveBeenCalled();
    expect(lastSocket().options).toMatchObject({ auth: { token: other } });
  });
});

describe('live helpers', () => {
  it('backs off from about 500 ms to at most about 10 s, with jitter', () => {
    expect(retryDelay(0, () => 0.5)).toBe(500);
    expect(retryDelay(1, () => 0.5)).toBe(1000);
    expect(retryDelay(20, () => 0.5)).toBe(10_000);
    expect(retryDelay(0, () => 0)).toBe(250);
    expect(retryDelay(20, () => 0.999)).toBeLessThan(15_000);
  });

  it('words the emergency and quarantine alerts from their payloads', () => {
    expect(emergencyMessage({ tokenId: 'T', container: 'ward-a', folder: 'p-1' })).toBe('Emergency access opened for ward-a/p-1');
    expect(emergencyMessage(null)).toBe('Emergency access opened for unknown/unknown');
    expect(refusedMessage({ tokenId: 'AAAAAAAA11111111BBBBBBBB22222222', reason: 'replayed' })).toBe(
      'Emergency access refused for token AAAAAAAA...22222222: replayed',
    );
    expect(refusedMessage(null)).toBe('Emergency access refused for token unknown: unknown reason');
    expect(quarantinedMessage({ signature: 'Eicar-Test-Signature', container: 'ward-a', folder: 'p-1' })).toBe(
      'A file was quarantined: Eicar-Test-Signature in p-1',
    );
    expect(quarantinedMessage(null)).toBe('A file was quarantined: unknown malware in an unknown folder');
  });
});
