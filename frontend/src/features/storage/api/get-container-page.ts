/** GET /api/assignments/containers?q=&page=&pageSize=12: one page of containers, searched on the server. */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { CONTAINER_PAGE_SIZE } from '../../../lib/pager';
import { STALE } from '../../../lib/queryConfig';
import { storageKeys } from '../../../lib/queryKeys';
import { getContainers } from '../../../lib/storageLists';

export const useContainerPage = (q: string, page: number) =>
  useQuery({
    queryKey: storageKeys.containerPage(q, page),
    queryFn: () => getContainers({ q, page, pageSize: CONTAINER_PAGE_SIZE }),
    staleTime: STALE.containers,
    // The previous page stays on screen while the next one loads.
    placeholderData: keepPreviousData,
  });
