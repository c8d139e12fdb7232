/** DELETE /api/auth/mfa/totp (a current code or the password). */
import { apiRequest } from '../../../lib/api/client';
import type { ConfirmIdentity } from '../../../lib/api/types';
import { mfaKeys, userKeys } from '../../../lib/queryKeys';
import { useInvalidatingMutation } from '../../../lib/useInvalidatingMutation';

export const removeTotp = (body: ConfirmIdentity): Promise<unknown> =>
  apiRequest<unknown>('/auth/mfa/totp', { method: 'DELETE', body });

export const useRemoveTotp = () => useInvalidatingMutation(removeTotp, [mfaKeys.all, userKeys.all]);
