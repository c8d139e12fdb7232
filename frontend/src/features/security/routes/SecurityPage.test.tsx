import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { makeToken, mockApi, NURSE, renderApp, signIn } from '../../../test/utils';

const CODES = Array.from({ length: 10 }, (_, i) => `code${i}-abcde`);
const NONE = { totp: false, passkeys: [], recoveryCodesLeft: 0 };
const STEP_UP = { message: "Confirm it's you: enter your password or a code from your authenticator.", reauth: true };
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

  it("removes a passkey; asked to confirm it's you, a wrong password shows, the right one retries once", async () => {
    signIn(NURSE);
    const api = mockApi({
      'GET /api/auth/mfa': { body: { totp: true, passkeys: [LAPTOP], recoveryCodesLeft: 7 } },
      'DELETE /api/auth/mfa/webauthn/4': ({ headers }) =>
        headers['x-step-up'] === 'proof-1' ? { body: { message: 'Passkey removed' } } : { status: 403, body: STEP_UP },
      'POST /api/auth/confirm-identity': ({ body }) =>
        (body as { password?: string }).password === 'secret-pass'
          ? { body: { message: 'Identity confirmed', stepUp: 'proof-1', expiresIn: 120 } }
          : { status: 400, body: { message: 'That code or password is not right.' } },
    });
    renderApp('/security');
    expect(await screen.findByText('7 of 10 recovery codes left.')).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Remove Work laptop' }));
    await userEvent.click(within(await screen.findByRole('alertdialog')).getByRole('button', { name: 'Remove' }));
    const confirm = await screen.findByRole('dialog', { name: "Confirm it's you" });
    // The form loads lazily: focus lands on the password once it is there.
    await waitFor(() => expect(within(confirm).getByLabelText('Your password')).toHaveFocus());
    await userEvent.type(within(confirm).getByLabelText('Your password'), 'wrong');
    await userEvent.click(within(confirm).getByRole('button', { name: 'Confirm' }));
    expect(await within(confirm).findByRole('alert')).toHaveTextContent('That code or password is not right.');
    await userEvent.clear(within(confirm).getByLabelText('Your password'));
    await userEvent.type(within(confirm).getByLabelText('Your password'), 'secret-pass');
    await userEvent.click(within(confirm).getByRole('button', { name: 'Confirm' }));
    expect(await screen.findByText('Passkey removed')).toBeInTheDocument();
    expect(screen.queryByRole('dialog', { name: "Confirm it's you" })).not.toBeInTheDocument();
    const deletes = api.calls.filter((c) => c.method === 'DELETE');
    expect(deletes.map((c) => c.stepUp)).toEqual([null, 'proof-1']);
  });

  it("cancelling \"Confirm it's you\" leaves the change undone with the server's message", async () => {
    signIn(NURSE);
    const api = mockApi({
      'GET /api/auth/mfa': { body: { totp: true, passkeys: [], recoveryCodesLeft: 7 } },
      'POST /api/auth/mfa/recovery-codes': { status: 403, body: STEP_UP },
    });
    renderApp('/security');
    await userEvent.click(await screen.findByRole('button', { name: 'Create new recovery codes' }));
    await userEvent.click(within(await screen.findByRole('alertdialog')).getByRole('button', { name: 'Create new codes' }));
    const confirm = await screen.findByRole('dialog', { name: "Confirm it's you" });
    expect(within(confirm).getByLabelText('Or a code from your authenticator')).toBeInTheDocument();
    await userEvent.click(within(confirm).getByRole('button', { name: 'Cancel' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(STEP_UP.message);
    expect(api.calls.filter((c) => c.path === '/api/auth/mfa/recovery-codes')).toHaveLength(1);
    expect(api.calls.some((c) => c.path === '/api/auth/confirm-identity')).toBe(false);
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
