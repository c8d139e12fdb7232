import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { makeToken, mockApi, NURSE, renderApp } from '../../../test/utils';
import { markSsoStarted } from '../api/sso';
import { SSO_MSG } from '../messages';

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
      markSsoStarted(); // this tab followed "Sign in with ..."
      window.history.pushState({}, '', '/login#sso=one-time-code');
      renderApp('/login');
      await waitFor(() => expect(screen.getByTestId('location')).toHaveTextContent('/dashboard'));
      expect(window.localStorage.getItem('token')).toBe(token);
      const trades = api.calls.filter((call) => call.path === '/api/auth/oidc/complete');
      expect(trades).toHaveLength(1);
      expect(trades[0]?.body).toEqual({ code: 'one-time-code' });
      expect(window.sessionStorage.getItem('bff-sso-started')).toBeNull();
      window.history.pushState({}, '', '/');
    });

    it('leaves a code this tab did not ask for unused (login CSRF, issue 47)', async () => {
      const api = mockApi(config('all'));
      window.history.pushState({}, '', '/login#sso=attackers-code');
      renderApp('/login');
      expect(await screen.findByRole('alert')).toHaveTextContent(SSO_MSG.notStartedHere);
      expect(window.location.hash).toBe('');
      expect(api.calls.filter((call) => call.path === '/api/auth/oidc/complete')).toHaveLength(0);
      expect(window.localStorage.getItem('token')).toBeNull();
      window.history.pushState({}, '', '/');
    });

    it('marks the tab when "Sign in with ..." is followed', async () => {
      mockApi(config('all'));
      renderApp('/login');
      const link = await screen.findByRole('link', { name: 'Sign in with St Mary IdP' });
      link.addEventListener('click', (event) => event.preventDefault()); // jsdom does not navigate
      await userEvent.click(link);
      expect(Number(window.sessionStorage.getItem('bff-sso-started'))).toBeGreaterThan(0);
      window.sessionStorage.clear();
    });

    it('an account not linked yet: ask an administrator, or prove the password once', async () => {
      const token = makeToken(NURSE);
      const api = mockApi({
        ...config('all'),
        'POST /api/auth/oidc/link': { body: { token, user: { ...NURSE, userId: NURSE.id } } },
        'GET /api/assignments/my-assignments': { body: { assignments: [] } },
      });
      markSsoStarted();
      window.history.pushState({}, '', '/login#sso-link=offer-code');
      renderApp('/login');
      expect(await screen.findByRole('heading', { name: 'Your St Mary IdP account is not linked to a Patient Records account yet.' })).toBeInTheDocument();
      expect(screen.getByText('Ask an administrator to link your account.')).toBeInTheDocument();
      await userEvent.type(screen.getByLabelText('Username'), 'nora');
      await userEvent.type(screen.getByLabelText('Password'), 'her-password');
      await userEvent.click(screen.getByRole('button', { name: 'Link and sign in' }));
      await waitFor(() => expect(screen.getByTestId('location')).toHaveTextContent('/dashboard'));
      const links = api.calls.filter((call) => call.path === '/api/auth/oidc/link');
      expect(links.map((call) => call.body)).toEqual([{ code: 'offer-code', username: 'nora', password: 'her-password' }]);
      expect(api.calls.filter((call) => call.path === '/api/auth/oidc/complete')).toHaveLength(0);
      window.history.pushState({}, '', '/');
    });

    it('an account not linked yet: enter the link code an administrator gave, then its second step', async () => {
      let tries = 0;
      const api = mockApi({
        ...config('all'),
        'POST /api/auth/oidc/link-code': () =>
          ++tries === 1
            ? { status: 400, body: { message: 'This link code is not valid.' } }
            : { body: { mfaRequired: true, mfaToken: 'mfa-token', methods: ['totp'] } },
      });
      markSsoStarted();
      window.history.pushState({}, '', '/login#sso-link=offer-code');
      renderApp('/login');
      const form = within(await screen.findByRole('form', { name: 'I have a link code' }));
      await userEvent.click(form.getByRole('button', { name: 'Link with the code and sign in' }));
      expect(screen.getByText('Please enter the link code.')).toBeInTheDocument();
      await userEvent.type(form.getByLabelText('Link code'), 'k7qm-x3vb-9rtd-hw2c');
      await userEvent.click(form.getByRole('button', { name: 'Link with the code and sign in' }));
      expect(await screen.findByText('This link code is not valid.')).toBeInTheDocument();
      await userEvent.click(form.getByRole('button', { name: 'Link with the code and sign in' }));
      // The account's own factor is asked for, whatever the provider did.
      expect(await screen.findByText('Enter the 6-digit code from your authenticator app.')).toBeInTheDocument();
      const links = api.calls.filter((call) => call.path === '/api/auth/oidc/link-code');
      expect(links.map((call) => call.body)).toEqual([
        { code: 'offer-code', linkCode: 'k7qm-x3vb-9rtd-hw2c' },
        { code: 'offer-code', linkCode: 'k7qm-x3vb-9rtd-hw2c' },
      ]);
      expect(api.calls.filter((call) => call.path === '/api/auth/oidc/link')).toHaveLength(0);
      window.history.pushState({}, '', '/');
    });

    it('with no passwords in use, an account not linked yet asks an administrator, for a link code', async () => {
      mockApi(config('none'));
      markSsoStarted();
      window.history.pushState({}, '', '/login#sso-link=offer-code');
      renderApp('/login');
      expect(await screen.findByText('Ask an administrator to link your account.')).toBeInTheDocument();
      expect(screen.getByLabelText('Link code')).toBeInTheDocument();
      await waitFor(() => expect(screen.queryByLabelText('Password')).not.toBeInTheDocument());
      window.history.pushState({}, '', '/');
    });
  });
});
