/** DELETE /api/users/{id}/mfa: remove every second factor of a user (a lost phone) and end their sessions. */
import { apiRequest, seg } from '../../../lib/api/client';
import type { ResetSecondFactorResponse } from '../../../lib/api/types';
import { userKeys } from '../../../lib/queryKeys';
import { useInvalidatingMutation } from '../../../lib/useInvalidatingMutation';

export const resetSecondFactor = (id: number): Promise<ResetSecondFactorResponse> =>
  apiRequest<ResetSecondFactorResponse>(`/users/${seg(id)}/mfa`, { method: 'DELETE' });

export const useResetSecondFactor = () => useInvalidatingMutation(resetSecondFactor, [userKeys.all]);
