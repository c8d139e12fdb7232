/** POST /api/admin/containers/{container}/folders {name}. */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest, seg } from '../../../lib/api/client';
import type { CreateFolderResponse } from '../../../lib/api/types';

export const createFolder = (container: string, name: string): Promise<CreateFolderResponse> =>
  apiRequest<CreateFolderResponse>(`/admin/containers/${seg(container)}/folders`, { method: 'POST', body: { name } });

export function useCreateFolder(container: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => createFolder(container, name),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['folders', container] }),
  });
}
