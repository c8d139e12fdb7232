/** DELETE /api/blobs/{container}/{folder}/{blob} (admins only). */
import { apiRequest } from '../../../lib/api/client';
import type { DeleteFileResponse } from '../../../lib/api/types';
import { assignmentKeys, fileKeys } from '../../../lib/queryKeys';
import { useInvalidatingMutation } from '../../../lib/useInvalidatingMutation';
import { filePath } from './paths';

export const deleteFile = (container: string, folder: string, blob: string): Promise<DeleteFileResponse> =>
  apiRequest<DeleteFileResponse>(filePath(container, folder, blob), { method: 'DELETE' });

export const useDeleteFile = (container: string, folder: string) =>
  useInvalidatingMutation((blob: string) => deleteFile(container, folder, blob), [
    fileKeys.folder(container, folder),
    assignmentKeys.myStats(),
  ]);
