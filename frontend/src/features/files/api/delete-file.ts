/** DELETE /api/blobs/{container}/{folder}/{blob} (admins only). */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api/client';
import type { DeleteFileResponse } from '../../../lib/api/types';
import { assignmentKeys } from '../../assignments/api/keys';
import { fileKeys, filePath } from './keys';

export const deleteFile = (container: string, folder: string, blob: string): Promise<DeleteFileResponse> =>
  apiRequest<DeleteFileResponse>(filePath(container, folder, blob), { method: 'DELETE' });

export function useDeleteFile(container: string, folder: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (blob: string) => deleteFile(container, folder, blob),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: fileKeys.folder(container, folder) });
      await queryClient.invalidateQueries({ queryKey: assignmentKeys.myStats() });
    },
  });
}
