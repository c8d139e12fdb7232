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
    expect(api.calls).toHaveLength(0);
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
    expect(api.calls[0]?.body).toEqual({ username: 'nora', password: 'secret-pass' });
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
});
