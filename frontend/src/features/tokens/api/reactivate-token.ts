/** POST /patients/admin/reactivate: a revoked token works again for its patient. */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api/client';
import type { ReactivateTokenRequest, TokenChangedResponse } from '../../../lib/api/types';
import { tokenKeys } from './keys';

export const reactivateToken = (body: ReactivateTokenRequest): Promise<TokenChangedResponse> =>
  apiRequest<TokenChangedResponse>('/patients/admin/reactivate', { method: 'POST', body, base: 'root' });

export function useReactivateToken() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: reactivateToken,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: tokenKeys.all }),
  });
}
