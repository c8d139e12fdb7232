/** GET /api/assignments/containers/{c}/folders?q=&page=&pageSize=20: one page of folders, in natural order. */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { STALE } from '../../../lib/queryConfig';
import { storageKeys } from '../../../lib/queryKeys';
import { getFolders } from '../../../lib/storageLists';

/** Folders per page (spec section 9). */
export const FOLDER_PAGE_SIZE = 20;

export const useFolderPage = (container: string, q: string, page: number) =>
  useQuery({
    queryKey: storageKeys.folderPage(container, q, page),
    queryFn: () => getFolders(container, { q, page, pageSize: FOLDER_PAGE_SIZE }),
    staleTime: STALE.folders,
    placeholderData: keepPreviousData,
  });
