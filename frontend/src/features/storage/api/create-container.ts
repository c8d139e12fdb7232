/** POST /api/admin/containers {name}. */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api/client';
import type { CreateContainerResponse } from '../../../lib/api/types';

export const createContainer = (name: string): Promise<CreateContainerResponse> =>
  apiRequest<CreateContainerResponse>('/admin/containers', { method: 'POST', body: { name } });

export function useCreateContainer() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: createContainer,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['containers'] }),
  });
}
