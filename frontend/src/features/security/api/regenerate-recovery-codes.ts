/** POST /api/auth/mfa/recovery-codes (a current code or the password): ten new codes replace the old. */
import { apiRequest } from '../../../lib/api/client';
import type { ConfirmIdentity, RecoveryCodesResponse } from '../../../lib/api/types';
import { mfaKeys } from '../../../lib/queryKeys';
import { useInvalidatingMutation } from '../../../lib/useInvalidatingMutation';

export const regenerateRecoveryCodes = (body: ConfirmIdentity): Promise<RecoveryCodesResponse> =>
  apiRequest<RecoveryCodesResponse>('/auth/mfa/recovery-codes', { method: 'POST', body });

export const useRegenerateRecoveryCodes = () => useInvalidatingMutation(regenerateRecoveryCodes, [mfaKeys.all]);
