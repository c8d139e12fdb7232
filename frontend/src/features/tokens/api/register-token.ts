/** POST /patients/admin/register: a new device; the answer carries its verification URL once. */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api/client';
import type { RegisterTokenRequest, RegisterTokenResponse } from '../../../lib/api/types';
import { tokenKeys } from './keys';

export const registerToken = (body: RegisterTokenRequest): Promise<RegisterTokenResponse> =>
  apiRequest<RegisterTokenResponse>('/patients/admin/register', { method: 'POST', body, base: 'root' });

export function useRegisterToken() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: registerToken,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: tokenKeys.all }),
  });
}
