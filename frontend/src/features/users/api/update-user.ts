/** PUT /api/users/{id}; the password is sent only when not blank. */
import { apiRequest, seg } from '../../../lib/api/client';
import type { UpdateUserRequest, UserResponse } from '../../../lib/api/types';
import { userKeys } from '../../../lib/queryKeys';
import { useInvalidatingMutation } from '../../../lib/useInvalidatingMutation';

export const updateUser = (id: number, body: UpdateUserRequest): Promise<UserResponse> =>
  apiRequest<UserResponse>(`/users/${seg(id)}`, { method: 'PUT', body });

export const useUpdateUser = (id: number) =>
  useInvalidatingMutation((body: UpdateUserRequest) => updateUser(id, body), [userKeys.all]);
