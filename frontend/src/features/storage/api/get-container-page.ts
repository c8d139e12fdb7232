/** GET /api/assignments/containers?q=&page=&pageSize=12: one page of containers, searched on the server. */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api/client';
import type { ContainersResponse } from '../../../lib/api/types';
import { STALE } from '../../../lib/queryConfig';
import { storageKeys } from '../../../lib/queryKeys';

/** Containers per page (spec section 9). */
export const CONTAINER_PAGE_SIZE = 12;

export const getContainerPage = (q: string, page: number): Promise<ContainersResponse> =>
  apiRequest<ContainersResponse>('/assignments/containers', { query: { q, page, pageSize: CONTAINER_PAGE_SIZE } });

export const useContainerPage = (q: string, page: number) =>
  useQuery({
    queryKey: storageKeys.containerPage(q, page),
    queryFn: () => getContainerPage(q, page),
    staleTime: STALE.containers,
    // The previous page stays on screen while the next one loads.
    placeholderData: keepPreviousData,
  });
