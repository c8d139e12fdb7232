/** DELETE /api/assignments/{id}?type=container|folder. */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest, seg } from '../../../lib/api/client';
import type { UnassignResponse, UnassignType } from '../../../lib/api/types';

export const unassign = (id: number, type: UnassignType): Promise<UnassignResponse> =>
  apiRequest<UnassignResponse>(`/assignments/${seg(id)}`, { method: 'DELETE', query: { type } });

export function useUnassign() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, type }: { id: number; type: UnassignType }) => unassign(id, type),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: ['assignments'] });
      await queryClient.invalidateQueries({ queryKey: ['users'] });
    },
  });
}
