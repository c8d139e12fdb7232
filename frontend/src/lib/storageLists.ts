/**
 * The full container and folder lists (GET /api/assignments/containers[/{container}/folders]):
 * reference data that several features pick from (assigning users, assigning SmartTokens, the
 * container page), so it is shared rather than owned by one of them; so is one page of a container's
 * folders (GET .../folders?q=&page=&pageSize=20), which the admin storage page and the container page show.
 */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { apiRequest, seg } from './api/client';
import type { ContainersResponse, FoldersResponse, ListQuery } from './api/types';
import { FOLDER_PAGE_SIZE } from './pager';
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

/** One page of a container's folders the caller may see, searched on the server; the previous page stays on screen while the next loads. */
export const useFolderPage = (container: string, q: string, page: number) =>
  useQuery({
    queryKey: storageKeys.folderPage(container, q, page),
    queryFn: () => getFolders(container, { q, page, pageSize: FOLDER_PAGE_SIZE }),
    staleTime: STALE.folders,
    placeholderData: keepPreviousData,
  });
