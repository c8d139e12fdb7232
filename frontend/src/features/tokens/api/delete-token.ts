/** DELETE /patients/admin/delete/{tokenId} with {reason} in the body: permanent. */
import { apiRequest, seg } from '../../../lib/api/client';
import type { DeleteTokenResponse } from '../../../lib/api/types';
import { tokenKeys } from '../../../lib/queryKeys';
import { useInvalidatingMutation } from '../../../lib/useInvalidatingMutation';

export const deleteToken = ({ tokenId, reason }: { tokenId: string; reason: string }): Promise<DeleteTokenResponse> =>
  apiRequest<DeleteTokenResponse>(`/patients/admin/delete/${seg(tokenId)}`, {
    method: 'DELETE',
    body: { reason },
    base: 'root',
  });

export const useDeleteToken = () => useInvalidatingMutation(deleteToken, [tokenKeys.all]);
