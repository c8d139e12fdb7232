/** POST /api/auth/mfa/totp/confirm: the authenticator's first code; returns recovery codes (and a full session from a restricted one). */
import { apiRequest } from '../../../lib/api/client';
import type { RecoveryCodesResponse } from '../../../lib/api/types';
import { mfaKeys, userKeys } from '../../../lib/queryKeys';
import { useInvalidatingMutation } from '../../../lib/useInvalidatingMutation';

export const confirmTotp = (code: string): Promise<RecoveryCodesResponse> =>
  apiRequest<RecoveryCodesResponse>('/auth/mfa/totp/confirm', { method: 'POST', body: { code } });

/** `invalidate: false` from a restricted session, whose token ends with this call. */
export const useConfirmTotp = (invalidate = true) =>
  useInvalidatingMutation(confirmTotp, invalidate ? [mfaKeys.all, userKeys.all] : []);
