/** GET /api/assignments/containers/{c}/folders?q=&page=&pageSize=20: one page of folders, in natural order. */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { apiRequest, seg } from '../../../lib/api/client';
import type { FoldersResponse } from '../../../lib/api/types';
import { STALE } from '../../../lib/queryConfig';
import { storageKeys } from '../../../lib/queryKeys';

/** Folders per page (spec section 9). */
export const FOLDER_PAGE_SIZE = 20;

export const getFolderPage = (container: string, q: string, page: number): Promise<FoldersResponse> =>
  apiRequest<FoldersResponse>(`/assignments/containers/${seg(container)}/folders`, {
    query: { q, page, pageSize: FOLDER_PAGE_SIZE },
  });

export const useFolderPage = (container: string, q: string, page: number) =>
  useQuery({
    queryKey: storageKeys.folderPage(container, q, page),
    queryFn: () => getFolderPage(container, q, page),
    staleTime: STALE.folders,
    placeholderData: keepPreviousData,
  });
