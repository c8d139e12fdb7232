/** POST /api/auth/register (admin). */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api/client';
import type { RegisterRequest, RegisterResponse } from '../../../lib/api/types';
import { userKeys } from './keys';

export const createUser = (body: RegisterRequest): Promise<RegisterResponse> =>
  apiRequest<RegisterResponse>('/auth/register', { method: 'POST', body });

export function useCreateUser() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: createUser,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: userKeys.all }),
  });
}
