/** POST /patients/admin/reactivate: a revoked token works again for its patient. */
import { apiRequest } from '../../../lib/api/client';
import type { ReactivateTokenRequest, TokenChangedResponse } from '../../../lib/api/types';
import { tokenKeys } from '../../../lib/queryKeys';
import { useInvalidatingMutation } from '../../../lib/useInvalidatingMutation';

export const reactivateToken = (body: ReactivateTokenRequest): Promise<TokenChangedResponse> =>
  apiRequest<TokenChangedResponse>('/patients/admin/reactivate', { method: 'POST', body, base: 'root' });

export const useReactivateToken = () => useInvalidatingMutation(reactivateToken, [tokenKeys.all]);
