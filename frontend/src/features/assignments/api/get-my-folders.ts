/** GET /api/assignments/my-assignments/folders?q=&page=&pageSize=20: one page of my folders across containers, with file counts. */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api/client';
import type { ListQuery, MyFoldersResponse } from '../../../lib/api/types';
import { FOLDER_PAGE_SIZE } from '../../../lib/pager';
import { STALE } from '../../../lib/queryConfig';
import { assignmentKeys } from '../../../lib/queryKeys';

export const getMyFolders = (query: ListQuery): Promise<MyFoldersResponse> =>
  apiRequest<MyFoldersResponse>('/assignments/my-assignments/folders', { query });

/** enabled: false leaves the query idle (the dashboard asks only once something is typed). */
export const useMyFolders = (q: string, page: number, enabled = true) =>
  useQuery({
    queryKey: assignmentKeys.myFolders(q, page),
    queryFn: () => getMyFolders({ q, page, pageSize: FOLDER_PAGE_SIZE }),
    staleTime: STALE.assignments,
    placeholderData: keepPreviousData,
    enabled,
  });
