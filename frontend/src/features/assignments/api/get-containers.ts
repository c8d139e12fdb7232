/** GET /api/assignments/containers (all of them; the picker searches locally). */
import { useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api/client';
import type { ContainersResponse, ListQuery } from '../../../lib/api/types';
import { STALE } from '../../../lib/queryConfig';
import { storageKeys } from '../../../lib/queryKeys';

export const getContainers = (query: ListQuery = {}): Promise<ContainersResponse> =>
  apiRequest<ContainersResponse>('/assignments/containers', { query });

export const useContainers = () =>
  useQuery({ queryKey: storageKeys.containerList(), queryFn: () => getContainers(), staleTime: STALE.containers });
