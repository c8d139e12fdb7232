/** POST /api/admin/containers/{container}/folders {name}. */
import { apiRequest, seg } from '../../../lib/api/client';
import type { CreateFolderResponse } from '../../../lib/api/types';
import { storageKeys } from '../../../lib/queryKeys';
import { useInvalidatingMutation } from '../../../lib/useInvalidatingMutation';

export const createFolder = (container: string, name: string): Promise<CreateFolderResponse> =>
  apiRequest<CreateFolderResponse>(`/admin/containers/${seg(container)}/folders`, { method: 'POST', body: { name } });

export const useCreateFolder = (container: string) =>
  useInvalidatingMutation((name: string) => createFolder(container, name), [storageKeys.folders(container)]);
