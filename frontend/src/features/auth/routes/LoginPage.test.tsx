import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { makeToken, mockApi, NURSE, renderApp } from '../../../test/utils';

async function fill(username: string, password: string) {
  if (username) await userEvent.type(await screen.findByLabelText('Username'), username);
  if (password) await userEvent.type(screen.getByLabelText('Password'), password);
  await userEvent.click(screen.getByRole('button', { name: 'Sign in' }));
}

describe('/login', () => {
  it('requires both fields', async () => {
    const api = mockApi();
    renderApp('/login');
    await fill('nora', '');
    expect(await screen.findByRole('alert')).toHaveTextContent('Please enter both username and password.');
    expect(api.calls.filter((call) => call.method !== 'GET')).toHaveLength(0);
  });

  it('shows the expired-session message', async () => {
    mockApi();
    renderApp('/login?session=expired');
    expect(
      await screen.findByText('Your session has expired or your account has been deleted. Please log in again.'),
    ).toBeInTheDocument();
  });

  it('stores the token and goes to /dashboard', async () => {
    const token = makeToken(NURSE);
    const api = mockApi({
      'POST /api/auth/login': { body: { token, user: { ...NURSE, userId: NURSE.id } } },
      'GET /api/assignments/my-assignments': { body: { assignments: [] } },
    });
    renderApp('/login');
    await fill('nora', 'secret-pass');
    await waitFor(() => expect(screen.getByTestId('location')).toHaveTextContent('/dashboard'));
    expect(window.localStorage.getItem('token')).toBe(token);
    expect(api.calls.find((call) => call.path === '/api/auth/login')?.body).toEqual({ username: 'nora', password: 'secret-pass' });
  });

  it('shows the server message and does not treat a 401 as an expired session', async () => {
    mockApi({ 'POST /api/auth/login': { status: 401, body: { message: 'Invalid username or password.' } } });
    window.history.pushState({}, '', '/login');
    renderApp('/login');
    await fill('nora', 'wrong-pass');
    expect(await screen.findByRole('alert')).toHaveTextContent('Invalid username or password.');
    expect(screen.getByTestId('location')).toHaveTextContent(/^\/login$/);
    window.history.pushState({}, '', '/');
  });

  it('falls back to "Failed to login" without a server message', async () => {
    mockApi({ 'POST /api/auth/login': { status: 500, body: {} } });
    renderApp('/login');
    await fill('nora', 'secret-pass');
    expect(await screen.findByRole('alert')).toHaveTextContent('Failed to login');
  });

  it('says "Login failed. Please try again." when the server cannot be reached', async () => {
    vi.stubGlobal('fetch', vi.fn().mockRejectedValue(new TypeError('offline')));
    renderApp('/login');
    await fill('nora', 'secret-pass');
    expect(await screen.findByRole('alert')).toHaveTextContent('Login failed. Please try again.');
  });

  describe('single sign-on', () => {
    const config = (localPasswords: 'all' | 'admins' | 'none') => ({
      'GET /api/auth/oidc/config': { body: { enabled: true, displayName: 'St Mary IdP', localPasswords } },
    });

    it('offers "Sign in with {provider}" beside the password form', async () => {
      mockApi(config('all'));
      renderApp('/login');
      const link = await screen.findByRole('link', { name: 'Sign in with St Mary IdP' });
      expect(link).toHaveAttribute('href', '/api/auth/oidc/start');
      expect(screen.getByLabelText('Username')).toBeInTheDocument();
    });

    it('leaves the password form out when no one may use a password', async () => {
      mockApi(config('none'));
      renderApp('/login');
      await screen.findByRole('link', { name: 'Sign in with St Mary IdP' });
      expect(screen.queryByLabelText('Password')).not.toBeInTheDocument();
    });

    it("shows the provider's refusal readably", async () => {
      mockApi(config('admins'));
      renderApp('/login?sso=no_role');
      expect(await screen.findByRole('alert')).toHaveTextContent(
        'Your St Mary IdP account has no role in Patient Records. Ask your administrator for access.',
      );
      expect(screen.getByText('Administrators: sign in with a password')).toBeInTheDocument();
    });

    it('trades the one-time code from the fragment once and signs in', async () => {
      const token = makeToken(NURSE);
      const api = mockApi({
        ...config('all'),
        'POST /api/auth/oidc/complete': { body: { token, user: { ...NURSE, userId: NURSE.id } } },
        'GET /api/assignments/my-assignments': { body: { assignments: [] } },
      });
      window.history.pushState({}, '', '/login#sso=one-time-code');
      renderApp('/login');
      await waitFor(() => expect(screen.getByTestId('location')).toHaveTextContent('/dashboard'));
      expect(window.localStorage.getItem('token')).toBe(token);
      const trades = api.calls.filter((call) => call.path === '/api/auth/oidc/complete');
      expect(trades).toHaveLength(1);
      expect(trades[0]?.body).toEqual({ code: 'one-time-code' });
      window.history.pushState({}, '', '/');
    });
  });
});
