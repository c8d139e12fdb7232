import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { makeToken, mockApi, NURSE, renderApp } from '../../../test/utils';
import { MFA_MSG } from '../messages';

const CHALLENGE = { mfaRequired: true, mfaToken: 'mfa-token-1', methods: ['totp', 'webauthn', 'recovery'] };

async function password() {
  await userEvent.type(await screen.findByLabelText('Username'), 'nora');
  await userEvent.type(screen.getByLabelText('Password'), 'secret-pass');
  await userEvent.click(screen.getByRole('button', { name: 'Sign in' }));
}

describe('/login second step', () => {
  it('asks for the authenticator code after the password and signs in with it', async () => {
    const token = makeToken(NURSE);
    const api = mockApi({
      'POST /api/auth/login': { body: CHALLENGE },
      'POST /api/auth/login/mfa': { body: { token, user: { ...NURSE, userId: NURSE.id } } },
      'GET /api/assignments/my-assignments': { body: { assignments: [] } },
    });
    renderApp('/login');
    await password();
    expect(await screen.findByRole('heading', { name: MFA_MSG.title })).toBeInTheDocument();
    expect(window.localStorage.getItem('token')).toBeNull();
    await userEvent.type(screen.getByLabelText('Authentication code'), '123456');
    await userEvent.click(screen.getByRole('button', { name: 'Verify' }));
    await waitFor(() => expect(screen.getByTestId('location')).toHaveTextContent('/dashboard'));
    expect(window.localStorage.getItem('token')).toBe(token);
    expect(api.calls.find((c) => c.path === '/api/auth/login/mfa')?.body).toEqual({ mfaToken: 'mfa-token-1', code: '123456' });
  });

  it('shows wrong and reused codes, and offers a passkey and a recovery code', async () => {
    const api = mockApi({
      'POST /api/auth/login': { body: CHALLENGE },
      'POST /api/auth/login/mfa': { status: 401, body: { message: 'That code has already been used. Wait for the next code and try again.' } },
    });
    renderApp('/login');
    await password();
    expect(await screen.findByRole('button', { name: 'Use a passkey' })).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Verify' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(MFA_MSG.codeRequired);
    await userEvent.type(screen.getByLabelText('Authentication code'), '123456');
    await userEvent.click(screen.getByRole('button', { name: 'Verify' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('That code has already been used.');
    expect(screen.getByTestId('location')).toHaveTextContent(/^\/login$/);
    await userEvent.click(screen.getByRole('button', { name: 'Use a recovery code' }));
    await userEvent.type(screen.getByLabelText('Recovery code'), 'abcde-fghjk');
    await userEvent.click(screen.getByRole('button', { name: 'Verify' }));
    await waitFor(() => expect(api.calls.filter((c) => c.path === '/api/auth/login/mfa')).toHaveLength(2));
    expect(api.calls.at(-1)?.body).toEqual({ mfaToken: 'mfa-token-1', code: 'abcde-fghjk' });
  });

  it('goes back to the password step when the sign-in expired', async () => {
    mockApi({
      'POST /api/auth/login': { body: { ...CHALLENGE, methods: ['totp'] } },
      'POST /api/auth/login/mfa': { status: 401, body: { message: MFA_MSG.expired } },
    });
    renderApp('/login');
    await password();
    expect(screen.queryByRole('button', { name: 'Use a passkey' })).not.toBeInTheDocument();
    await userEvent.type(await screen.findByLabelText('Authentication code'), '123456');
    await userEvent.click(screen.getByRole('button', { name: 'Verify' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(MFA_MSG.expired);
    expect(screen.getByRole('button', { name: 'Sign in' })).toBeInTheDocument();
    expect(screen.getByLabelText('Password')).toHaveValue('');
  });

  it('sends a restricted session to the forced enrolment screen', async () => {
    const token = makeToken(NURSE, { mfaEnrolment: true });
    mockApi({ 'POST /api/auth/login': { body: { token, user: { ...NURSE, userId: NURSE.id }, mfaEnrolmentRequired: true } } });
    renderApp('/login');
    await password();
    expect(await screen.findByRole('heading', { name: 'Set up a second factor' })).toBeInTheDocument();
    expect(screen.getByTestId('location')).toHaveTextContent('/security/setup');
  });
});
