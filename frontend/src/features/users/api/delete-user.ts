/** DELETE /api/users/{id}. */
import { apiRequest, seg } from '../../../lib/api/client';
import type { DeleteUserResponse } from '../../../lib/api/types';
import { assignmentKeys, userKeys } from '../../../lib/queryKeys';
import { useInvalidatingMutation } from '../../../lib/useInvalidatingMutation';

export const deleteUser = (id: number): Promise<DeleteUserResponse> =>
  apiRequest<DeleteUserResponse>(`/users/${seg(id)}`, { method: 'DELETE' });

export const useDeleteUser = () => useInvalidatingMutation(deleteUser, [userKeys.all, assignmentKeys.all]);
