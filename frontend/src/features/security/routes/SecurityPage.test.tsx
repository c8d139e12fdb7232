import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { makeToken, mockApi, NURSE, renderApp, signIn } from '../../../test/utils';

const CODES = Array.from({ length: 10 }, (_, i) => `code${i}-abcde`);
const NONE = { totp: false, passkeys: [], recoveryCodesLeft: 0 };
const LAPTOP = { id: 4, label: 'Work laptop', createdAt: '2026-01-02T10:00:00Z', lastUsedAt: null };

describe('/security', () => {
  it('sets up an authenticator: QR code, secret, confirm with a code, recovery codes once', async () => {
    signIn(NURSE);
    const api = mockApi({
      'GET /api/auth/mfa': { body: NONE },
      'POST /api/auth/mfa/totp': { body: { secret: 'JBSWY3DPEHPK3PXP', otpauthUrl: 'otpauth://totp/Patient%20Records:nora?secret=JBSWY3DPEHPK3PXP' } },
      'POST /api/auth/mfa/totp/confirm': { body: { recoveryCodes: CODES, token: null } },
    });
    renderApp('/security');
    await userEvent.click(await screen.findByRole('button', { name: 'Set up an authenticator app' }));
    expect(await screen.findByRole('img', { name: 'QR code for your authenticator app' })).toBeInTheDocument();
    expect(screen.getByTestId('totp-secret')).toHaveTextContent('JBSWY3DPEHPK3PXP');
    await userEvent.click(screen.getByRole('button', { name: 'Confirm' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Please enter the code from your authenticator app.');
    await userEvent.type(screen.getByLabelText('Code from the app'), '123456');
    await userEvent.click(screen.getByRole('button', { name: 'Confirm' }));
    const list = await screen.findByRole('list', { name: 'Recovery codes' });
    expect(within(list).getAllByRole('listitem')).toHaveLength(10);
    expect(screen.getByRole('button', { name: 'Copy' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Download' })).toBeInTheDocument();
    expect(api.calls.find((c) => c.path === '/api/auth/mfa/totp/confirm')?.body).toEqual({ code: '123456' });
  });

  it('shows a wrong confirmation code', async () => {
    signIn(NURSE);
    mockApi({
      'GET /api/auth/mfa': { body: NONE },
      'POST /api/auth/mfa/totp': { body: { secret: 'S', otpauthUrl: 'otpauth://totp/x?secret=S' } },
      'POST /api/auth/mfa/totp/confirm': { status: 400, body: { message: 'That code does not match. Check the time on your device and try again.' } },
    });
    renderApp('/security');
    await userEvent.click(await screen.findByRole('button', { name: 'Set up an authenticator app' }));
    await userEvent.type(await screen.findByLabelText('Code from the app'), '000000');
    await userEvent.click(screen.getByRole('button', { name: 'Confirm' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('That code does not match.');
  });

  it('removes a passkey after the password, and regenerates recovery codes', async () => {
    signIn(NURSE);
    const api = mockApi({
      'GET /api/auth/mfa': { body: { totp: true, passkeys: [LAPTOP], recoveryCodesLeft: 7 } },
      'DELETE /api/auth/mfa/webauthn/4': { body: { message: 'Passkey removed' } },
      'POST /api/auth/mfa/recovery-codes': { body: { recoveryCodes: CODES, token: null } },
    });
    renderApp('/security');
    expect(await screen.findByText('7 of 10 recovery codes left.')).toBeInTheDocument();
    expect(screen.getByText('Work laptop')).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Remove Work laptop' }));
    const dialog = await screen.findByRole('alertdialog');
    await userEvent.type(within(dialog).getByLabelText('Your password'), 'secret-pass');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Remove' }));
    expect(await screen.findByText('Passkey removed')).toBeInTheDocument();
    expect(api.calls.find((c) => c.method === 'DELETE')?.body).toEqual({ password: 'secret-pass' });
    await userEvent.click(screen.getByRole('button', { name: 'Create new recovery codes' }));
    const again = await screen.findByRole('dialog');
    await userEvent.type(within(again).getByLabelText('Authenticator code'), '654321');
    await userEvent.click(within(again).getByRole('button', { name: 'Create new codes' }));
    expect(await screen.findByRole('list', { name: 'Recovery codes' })).toBeInTheDocument();
    expect(api.calls.find((c) => c.path === '/api/auth/mfa/recovery-codes')?.body).toEqual({ code: '654321' });
  });

  it('keeps a restricted session on the enrolment screen until it has a factor, then uses the new session', async () => {
    window.localStorage.setItem('token', makeToken(NURSE, { mfaEnrolment: true }));
    const full = makeToken(NURSE);
    mockApi({
      'POST /api/auth/mfa/totp': { body: { secret: 'S', otpauthUrl: 'otpauth://totp/x?secret=S' } },
      'POST /api/auth/mfa/totp/confirm': { body: { recoveryCodes: CODES, token: full } },
      'GET /api/assignments/my-assignments': { body: { assignments: [] } },
    });
    renderApp('/dashboard');
    expect(await screen.findByRole('heading', { name: 'Set up a second factor' })).toBeInTheDocument();
    expect(screen.getByTestId('location')).toHaveTextContent('/security/setup');
    await userEvent.click(screen.getByRole('button', { name: 'Set up an authenticator app' }));
    await userEvent.type(await screen.findByLabelText('Code from the app'), '123456');
    await userEvent.click(screen.getByRole('button', { name: 'Confirm' }));
    await userEvent.click(await screen.findByRole('button', { name: 'Continue' }));
    await waitFor(() => expect(screen.getByTestId('location')).toHaveTextContent('/dashboard'));
    expect(window.localStorage.getItem('token')).toBe(full);
  });
});
