/** POST /api/auth/login/mfa (a code or a passkey for the mfaToken) and its passkey options. */
import { useMutation } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api/client';
import type { MfaLoginRequest, MfaLoginResponse } from '../../../lib/api/types';
import { setToken } from '../../../lib/session';
import { getPasskeyAssertion } from '../../../lib/webauthn';

// No session yet: a 401 here is a wrong code or an expired mfaToken, never an expired session.
export function loginMfa(body: MfaLoginRequest): Promise<MfaLoginResponse> {
  return apiRequest<MfaLoginResponse>('/auth/login/mfa', { method: 'POST', body, ignoreUnauthorized: true });
}

/** Ask the server for request options, let the browser's passkey sign them, send the assertion. */
export async function loginWithPasskey(mfaToken: string): Promise<MfaLoginResponse> {
  const options = await apiRequest<unknown>('/auth/login/mfa/webauthn/options', {
    method: 'POST',
    body: { mfaToken },
    ignoreUnauthorized: true,
  });
  const webauthn = await getPasskeyAssertion(options);
  return loginMfa({ mfaToken, webauthn });
}

export function useLoginMfa() {
  return useMutation({
    mutationFn: (step: { mfaToken: string; code?: string; passkey?: boolean }) =>
      step.passkey ? loginWithPasskey(step.mfaToken) : loginMfa({ mfaToken: step.mfaToken, code: step.code ?? '' }),
    onSuccess: (data) => setToken(data.token),
  });
}
