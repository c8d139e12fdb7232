import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { ADMIN, makeUser, mockApi, NURSE, renderApp, signIn } from '../test/utils';
import { LOGOUT_ALL_WARNING } from './layout/TopBar';

const dashboard = { users: [makeUser({ id: 2, name: 'Dana Doctor' })], stats: { totalUsers: 2, doctors: 1, nurses: 0, assistants: 0 } };

describe('routing and guards', () => {
  beforeEach(() => {
    mockApi({
      'GET /api/users/dashboard': { body: dashboard },
      'GET /api/users': { body: { users: [] } },
      'GET /api/assignments/my-assignments': { body: { assignments: [] } },
    });
  });

  it('sends visitors without a session to /login', async () => {
    renderApp('/users');
    await waitFor(() => expect(screen.getByTestId('location')).toHaveTextContent(/^\/login$/));
    expect(await screen.findByRole('button', { name: 'Sign in' })).toBeInTheDocument();
  });

  it('treats an unreadable token as no session', async () => {
    window.localStorage.setItem('token', 'not-a-jwt');
    renderApp('/dashboard');
    await waitFor(() => expect(screen.getByTestId('location')).toHaveTextContent('/login'));
  });

  it.each(['/', '/no/such/page'])('redirects %s to /dashboard', async (path) => {
    signIn(ADMIN);
    renderApp(path);
    await waitFor(() => expect(screen.getByTestId('location')).toHaveTextContent(/^\/dashboard$/));
    expect(await screen.findByRole('heading', { name: 'Admin Dashboard' })).toBeInTheDocument();
  });

  it.each([
    '/users',
    '/users/create',
    '/users/edit/3',
    '/users/assign/3',
    '/assignments',
    '/audit-logs',
    '/admin/containers',
    '/admin/containers/ward-a',
    '/admin/containers/ward-a/folders/p-1',
    '/admin/smart-tokens',
    '/admin/quarantine',
  ])(
    'sends a nurse on %s to /unauthorized',
    async (path) => {
      signIn(NURSE);
      renderApp(path);
      await waitFor(() => expect(screen.getByTestId('location')).toHaveTextContent(/^\/unauthorized$/));
      expect(await screen.findByRole('heading', { name: 'Access denied' })).toBeInTheDocument();
    },
  );

  it('lets an admin open admin routes', async () => {
    signIn(ADMIN);
    renderApp('/users');
    expect(await screen.findByRole('heading', { name: 'Users' })).toBeInTheDocument();
  });

  it('opens SmartToken Management from the admin sidebar', async () => {
    mockApi({
      'GET /api/users/dashboard': { body: dashboard },
      'GET /patients/admin/unclaimed': { body: { tokens: [] } },
      'GET /patients/admin/assigned': { body: { tokens: [] } },
    });
    signIn(ADMIN);
    renderApp('/dashboard');
    await userEvent.click(await screen.findByRole('link', { name: /SmartToken Management/ }));
    expect(await screen.findByRole('heading', { name: 'SmartToken Management' })).toBeInTheDocument();
    expect(screen.getByTestId('location')).toHaveTextContent(/^\/admin\/smart-tokens$/);
  });

  it.each(['/patients/verify/ABC', '/emergency'])('opens %s without a session, outside the layout', async (path) => {
    renderApp(path);
    expect(await screen.findByRole('heading')).toBeInTheDocument();
    expect(screen.getByTestId('location')).toHaveTextContent(path);
    expect(screen.queryByRole('navigation', { name: 'Main navigation' })).not.toBeInTheDocument();
  });

  it('shows the staff dashboard to non-admins', async () => {
    signIn(NURSE);
    renderApp('/dashboard');
    expect(await screen.findByRole('heading', { name: 'Welcome, Nora Nurse' })).toBeInTheDocument();
  });

  it('goes to /login?session=expired when any call answers 401', async () => {
    mockApi({ 'GET /api/users': { status: 401, body: { message: 'Your session has expired. Please log in again.' } } });
    signIn(ADMIN);
    renderApp('/users');
    await waitFor(() => expect(screen.getByTestId('location')).toHaveTextContent('/login?session=expired'));
    expect(window.localStorage.getItem('token')).toBeNull();
    expect(
      await screen.findByText('Your session has expired or your account has been deleted. Please log in again.'),
    ).toBeInTheDocument();
  });

  it('ends the session when another tab removes the token', async () => {
    const token = signIn(ADMIN);
    renderApp('/dashboard');
    await screen.findByRole('heading', { name: 'Admin Dashboard' });
    window.localStorage.removeItem('token');
    window.dispatchEvent(new StorageEvent('storage', { key: 'token', oldValue: token, newValue: null }));
    await waitFor(() => expect(screen.getByTestId('location')).toHaveTextContent('/login?session=expired'));
  });
});

describe('layout', () => {
  it('gives admins the admin sidebar', async () => {
    mockApi({ 'GET /api/users/dashboard': { body: dashboard } });
    signIn(ADMIN);
    renderApp('/dashboard');
    const nav = await screen.findByRole('navigation', { name: 'Main navigation' });
    const labels = Array.from(nav.querySelectorAll('a')).map((a) => [a.textContent?.slice(1), a.getAttribute('href')]);
    expect(labels).toEqual([
      ['Home', '/dashboard'],
      ['Users', '/users'],
      ['Assignments', '/assignments'],
      ['Storage Management', '/admin/containers'],
      ['SmartToken Management', '/admin/smart-tokens'],
      ['Audit Logs', '/audit-logs'],
      ['Quarantine', '/admin/quarantine'],
      ['Intake', '/intake'],
    ]);
    expect(screen.getByText('Ada Admin')).toBeInTheDocument();
  });

  it('gives other roles Home and My Assignments', async () => {
    mockApi({ 'GET /api/assignments/my-assignments': { body: { assignments: [] } } });
    signIn(NURSE);
    renderApp('/dashboard');
    const nav = await screen.findByRole('navigation', { name: 'Main navigation' });
    expect(Array.from(nav.querySelectorAll('a')).map((a) => a.getAttribute('href'))).toEqual(['/dashboard', '/my-assignments']);
    expect(screen.getByText('nurse')).toBeInTheDocument();
  });

  it('remembers the collapsed sidebar', async () => {
    mockApi({ 'GET /api/assignments/my-assignments': { body: { assignments: [] } } });
    signIn(NURSE);
    const { unmount } = renderApp('/dashboard');
    await userEvent.click(await screen.findByRole('button', { name: 'Collapse sidebar' }));
    expect(window.localStorage.getItem('sidebarCollapsed')).toBe('true');
    unmount();
    renderApp('/dashboard');
    expect(await screen.findByRole('button', { name: 'Expand sidebar' })).toHaveAttribute('aria-expanded', 'false');
  });

  it('asks before Logout All Sessions; Cancel keeps the session', async () => {
    const api = mockApi({ 'GET /api/assignments/my-assignments': { body: { assignments: [] } } });
    signIn(NURSE);
    renderApp('/dashboard');
    await screen.findByRole('heading', { name: 'Welcome, Nora Nurse' });
    await userEvent.click(screen.getByRole('button', { name: 'Logout All Sessions' }));
    const confirm = screen.getByRole('alertdialog', { name: 'Logout All Sessions?' });
    expect(confirm).toHaveTextContent(LOGOUT_ALL_WARNING);
    expect(within(confirm).getByRole('button', { name: 'Cancel' })).toHaveFocus();
    await userEvent.click(within(confirm).getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument();
    expect(api.calls.some((c) => c.method === 'POST')).toBe(false);
    expect(window.localStorage.getItem('token')).not.toBeNull();
  });

  it('names each letter of the collapsed sidebar for screen readers and shows the name beside it', async () => {
    mockApi({ 'GET /api/assignments/my-assignments': { body: { assignments: [] } } });
    signIn(NURSE);
    renderApp('/dashboard');
    await userEvent.click(await screen.findByRole('button', { name: 'Collapse sidebar' }));
    const nav = screen.getByRole('navigation', { name: 'Main navigation' });
    const home = within(nav).getByRole('link', { name: 'Home' });
    const mine = within(nav).getByRole('link', { name: 'My Assignments' });
    // The letter is decoration; the name is the tooltip the stylesheet shows on hover and focus.
    expect(home.querySelector('.nav-icon')).toHaveAttribute('aria-hidden', 'true');
    expect(home.querySelector('.nav-label')).toHaveTextContent('Home');
    expect(mine.querySelector('.nav-label')).toHaveTextContent('My Assignments');
  });

  it.each([
    ['Logout', '/api/auth/logout'],
    ['Logout All Sessions', '/api/auth/logout-all'],
  ])('%s ends the session and clears the token and cache', async (button, path) => {
    const api = mockApi({
      'GET /api/assignments/my-assignments': { body: { assignments: [] } },
      'POST /api/auth/logout': { body: { message: 'Logged out successfully' } },
      'POST /api/auth/logout-all': { body: { message: 'Logged out of all sessions', sessionsEnded: 2 } },
    });
    signIn(NURSE);
    const { client } = renderApp('/dashboard');
    await screen.findByRole('heading', { name: 'Welcome, Nora Nurse' });
    await userEvent.click(screen.getByRole('button', { name: button }));
    if (button === 'Logout All Sessions') {
      const confirm = screen.getByRole('alertdialog', { name: 'Logout All Sessions?' });
      await userEvent.click(within(confirm).getByRole('button', { name: 'Logout All Sessions' }));
    }
    await waitFor(() => expect(screen.getByTestId('location')).toHaveTextContent(/^\/login$/));
    expect(api.calls.some((c) => c.method === 'POST' && c.path === path)).toBe(true);
    expect(window.localStorage.getItem('token')).toBeNull();
    // Nothing from the session is left (the login page's public sign-in options may load anew).
    expect(client.getQueryCache().getAll().filter((q) => q.queryKey[0] !== 'sso')).toHaveLength(0);
  });
});
