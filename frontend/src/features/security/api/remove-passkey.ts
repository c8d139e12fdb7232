/** DELETE /api/auth/mfa/webauthn/{id} (a step-up route). */
import { apiRequest, seg } from '../../../lib/api/client';
import { mfaKeys, userKeys } from '../../../lib/queryKeys';
import { useInvalidatingMutation } from '../../../lib/useInvalidatingMutation';

export const removePasskey = (id: number): Promise<unknown> =>
  apiRequest<unknown>(`/auth/mfa/webauthn/${seg(id)}`, { method: 'DELETE' });

export const useRemovePasskey = () => useInvalidatingMutation(removePasskey, [mfaKeys.all, userKeys.all]);
