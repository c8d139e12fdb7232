/** POST /api/auth/mfa/recovery-codes (a step-up route): ten new codes replace the old. */
import { apiRequest } from '../../../lib/api/client';
import type { RecoveryCodesResponse } from '../../../lib/api/types';
import { mfaKeys } from '../../../lib/queryKeys';
import { useInvalidatingMutation } from '../../../lib/useInvalidatingMutation';

export const regenerateRecoveryCodes = (): Promise<RecoveryCodesResponse> =>
  apiRequest<RecoveryCodesResponse>('/auth/mfa/recovery-codes', { method: 'POST' });

export const useRegenerateRecoveryCodes = () => useInvalidatingMutation(regenerateRecoveryCodes, [mfaKeys.all]);
