/** DELETE /api/users/{id}. */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest, seg } from '../../../lib/api/client';
import type { DeleteUserResponse } from '../../../lib/api/types';
import { userKeys } from './keys';

export const deleteUser = (id: number): Promise<DeleteUserResponse> =>
  apiRequest<DeleteUserResponse>(`/users/${seg(id)}`, { method: 'DELETE' });

export function useDeleteUser() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: deleteUser,
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: userKeys.all });
      await queryClient.invalidateQueries({ queryKey: ['assignments'] });
    },
  });
}
