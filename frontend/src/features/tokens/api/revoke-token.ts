/** POST /patients/admin/revoke: remote disconnect, with a reason from the spec's list. */
import { apiRequest } from '../../../lib/api/client';
import type { RevokeTokenRequest, TokenChangedResponse } from '../../../lib/api/types';
import { tokenKeys } from '../../../lib/queryKeys';
import { useInvalidatingMutation } from '../../../lib/useInvalidatingMutation';

export const revokeToken = (body: RevokeTokenRequest): Promise<TokenChangedResponse> =>
  apiRequest<TokenChangedResponse>('/patients/admin/revoke', { method: 'POST', body, base: 'root' });

export const useRevokeToken = () => useInvalidatingMutation(revokeToken, [tokenKeys.all]);
