/** GET /api/assignments/containers/{container}/folders (all of them). */
import { useQuery } from '@tanstack/react-query';
import { apiRequest, seg } from '../../../lib/api/client';
import type { FoldersResponse, ListQuery } from '../../../lib/api/types';
import { STALE } from '../../../lib/queryConfig';
import { storageKeys } from '../../../lib/queryKeys';

export const getFolders = (container: string, query: ListQuery = {}): Promise<FoldersResponse> =>
  apiRequest<FoldersResponse>(`/assignments/containers/${seg(container)}/folders`, { query });

export const useFolders = (container: string | null) =>
  useQuery({
    queryKey: storageKeys.folderList(container ?? ''),
    queryFn: () => getFolders(container ?? ''),
    staleTime: STALE.folders,
    enabled: Boolean(container),
  });
