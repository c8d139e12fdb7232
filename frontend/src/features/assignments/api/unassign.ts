/** DELETE /api/assignments/{id}?type=container|folder. */
import { apiRequest, seg } from '../../../lib/api/client';
import type { UnassignResponse, UnassignType } from '../../../lib/api/types';
import { assignmentKeys, userKeys } from '../../../lib/queryKeys';
import { useInvalidatingMutation } from '../../../lib/useInvalidatingMutation';

export const unassign = (id: number, type: UnassignType): Promise<UnassignResponse> =>
  apiRequest<UnassignResponse>(`/assignments/${seg(id)}`, { method: 'DELETE', query: { type } });

export const useUnassign = () =>
  useInvalidatingMutation(({ id, type }: { id: number; type: UnassignType }) => unassign(id, type), [assignmentKeys.all, userKeys.all]);
