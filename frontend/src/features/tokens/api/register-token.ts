/** POST /patients/admin/register: a new device; the answer carries its verification URL once. */
import { apiRequest } from '../../../lib/api/client';
import type { RegisterTokenRequest, RegisterTokenResponse } from '../../../lib/api/types';
import { tokenKeys } from '../../../lib/queryKeys';
import { useInvalidatingMutation } from '../../../lib/useInvalidatingMutation';

export const registerToken = (body: RegisterTokenRequest): Promise<RegisterTokenResponse> =>
  apiRequest<RegisterTokenResponse>('/patients/admin/register', { method: 'POST', body, base: 'root' });

export const useRegisterToken = () => useInvalidatingMutation(registerToken, [tokenKeys.all]);
