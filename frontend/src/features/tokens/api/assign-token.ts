/** POST /patients/admin/assign: link a token to a patient folder (reported as a reassignment when it moves one). */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api/client';
import type { AssignTokenRequest, AssignTokenResponse } from '../../../lib/api/types';
import { tokenKeys } from './keys';

export const assignToken = (body: AssignTokenRequest): Promise<AssignTokenResponse> =>
  apiRequest<AssignTokenResponse>('/patients/admin/assign', { method: 'POST', body, base: 'root' });

export function useAssignToken() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: assignToken,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: tokenKeys.all }),
  });
}
