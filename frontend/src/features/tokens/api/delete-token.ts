/** DELETE /patients/admin/delete/{tokenId} with {reason} in the body: permanent. */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest, seg } from '../../../lib/api/client';
import type { DeleteTokenResponse } from '../../../lib/api/types';
import { tokenKeys } from './keys';

export const deleteToken = ({ tokenId, reason }: { tokenId: string; reason: string }): Promise<DeleteTokenResponse> =>
  apiRequest<DeleteTokenResponse>(`/patients/admin/delete/${seg(tokenId)}`, {
    method: 'DELETE',
    body: { reason },
    base: 'root',
  });

export function useDeleteToken() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: deleteToken,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: tokenKeys.all }),
  });
}
