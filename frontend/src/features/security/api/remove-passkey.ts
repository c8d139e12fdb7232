/** DELETE /api/auth/mfa/webauthn/{id} (a current code or the password). */
import { apiRequest, seg } from '../../../lib/api/client';
import type { ConfirmIdentity } from '../../../lib/api/types';
import { mfaKeys, userKeys } from '../../../lib/queryKeys';
import { useInvalidatingMutation } from '../../../lib/useInvalidatingMutation';

export const removePasskey = ({ id, ...body }: ConfirmIdentity & { id: number }): Promise<unknown> =>
  apiRequest<unknown>(`/auth/mfa/webauthn/${seg(id)}`, { method: 'DELETE', body });

export const useRemovePasskey = () => useInvalidatingMutation(removePasskey, [mfaKeys.all, userKeys.all]);
