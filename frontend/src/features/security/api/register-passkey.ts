/** POST /api/auth/mfa/webauthn/register/options, then the browser creates the passkey, then POST /api/auth/mfa/webauthn/register. */
import { apiRequest } from '../../../lib/api/client';
import type { PasskeyCreated } from '../../../lib/api/types';
import { mfaKeys, userKeys } from '../../../lib/queryKeys';
import { useInvalidatingMutation } from '../../../lib/useInvalidatingMutation';
import { createPasskey } from '../../../lib/webauthn';

export async function registerPasskey(label: string): Promise<PasskeyCreated> {
  const options = await apiRequest<unknown>('/auth/mfa/webauthn/register/options', { method: 'POST' });
  const credential = await createPasskey(options);
  return apiRequest<PasskeyCreated>('/auth/mfa/webauthn/register', { method: 'POST', body: { credential, label } });
}

/** `invalidate: false` from a restricted session, whose token ends with this call. */
export const useRegisterPasskey = (invalidate = true) =>
  useInvalidatingMutation(registerPasskey, invalidate ? [mfaKeys.all, userKeys.all] : []);
