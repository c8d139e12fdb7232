/** DELETE /api/admin/quarantine/{id} (admins): the quarantined bytes deleted for good. */
import { apiRequest, seg } from '../../../lib/api/client';
import type { DeleteQuarantinedResponse } from '../../../lib/api/types';
import { scanKeys } from '../../../lib/queryKeys';
import { useInvalidatingMutation } from '../../../lib/useInvalidatingMutation';

export const deleteQuarantined = (id: number): Promise<DeleteQuarantinedResponse> =>
  apiRequest<DeleteQuarantinedResponse>(`/admin/quarantine/${seg(id)}`, { method: 'DELETE' });

// The list and the dashboard's count.
export const useDeleteQuarantined = () => useInvalidatingMutation(deleteQuarantined, [scanKeys.all]);
