/** POST /patients/admin/revoke: remote disconnect, with a reason from the spec's list. */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api/client';
import type { RevokeTokenRequest, TokenChangedResponse } from '../../../lib/api/types';
import { tokenKeys } from './keys';

export const revokeToken = (body: RevokeTokenRequest): Promise<TokenChangedResponse> =>
  apiRequest<TokenChangedResponse>('/patients/admin/revoke', { method: 'POST', body, base: 'root' });

export function useRevokeToken() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: revokeToken,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: tokenKeys.all }),
  });
}
