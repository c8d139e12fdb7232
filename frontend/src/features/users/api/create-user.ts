/** POST /api/auth/register (admin). */
import { apiRequest } from '../../../lib/api/client';
import type { RegisterRequest, RegisterResponse } from '../../../lib/api/types';
import { userKeys } from '../../../lib/queryKeys';
import { useInvalidatingMutation } from '../../../lib/useInvalidatingMutation';

export const createUser = (body: RegisterRequest): Promise<RegisterResponse> =>
  apiRequest<RegisterResponse>('/auth/register', { method: 'POST', body });

export const useCreateUser = () => useInvalidatingMutation(createUser, [userKeys.all]);
