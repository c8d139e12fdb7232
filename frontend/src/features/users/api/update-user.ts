/** PUT /api/users/{id}; the password is sent only when not blank. */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest, seg } from '../../../lib/api/client';
import type { UpdateUserRequest, UserResponse } from '../../../lib/api/types';
import { userKeys } from './keys';

export const updateUser = (id: number, body: UpdateUserRequest): Promise<UserResponse> =>
  apiRequest<UserResponse>(`/users/${seg(id)}`, { method: 'PUT', body });

export function useUpdateUser(id: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: UpdateUserRequest) => updateUser(id, body),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: userKeys.all }),
  });
}
