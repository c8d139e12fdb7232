/**
 * The full container and folder lists (GET /api/assignments/containers[/{container}/folders]):
 * reference data that several features pick from (assigning users, assigning SmartTokens, the
 * container page), so it is shared rather than owned by one of them. The storage screens page
 * through the same endpoints with their own queries.
 */
import { useQuery } from '@tanstack/react-query';
import { apiRequest, seg } from './api/client';
import type { ContainersResponse, FoldersResponse, ListQuery } from './api/types';
import { STALE } from './queryConfig';
import { storageKeys } from './queryKeys';

export const getContainers = (query: ListQuery = {}): Promise<ContainersResponse> =>
  apiRequest<ContainersResponse>('/assignments/containers', { query });

export const useContainers = () =>
  useQuery({ queryKey: storageKeys.containerList(), queryFn: () => getContainers(), staleTime: STALE.containers });

export const getFolders = (container: string, query: ListQuery = {}): Promise<FoldersResponse> =>
  apiRequest<FoldersResponse>(`/assignments/containers/${seg(container)}/folders`, { query });

export const useFolders = (container: string | null) =>
  useQuery({
    queryKey: storageKeys.folderList(container ?? ''),
    queryFn: () => getFolders(container ?? ''),
    staleTime: STALE.folders,
    enabled: Boolean(container),
  });
