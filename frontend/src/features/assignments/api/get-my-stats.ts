/** GET /api/assignments/my-assignments/stats: every assigned folder's file counts in one request. */
import { useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api/client';
import type { MyStatsResponse } from '../../../lib/api/types';
import { STALE } from '../../../lib/queryConfig';
import { assignmentKeys } from '../../../lib/queryKeys';

export const getMyStats = (): Promise<MyStatsResponse> => apiRequest<MyStatsResponse>('/assignments/my-assignments/stats');

export const useMyStats = () =>
  useQuery({ queryKey: assignmentKeys.myStats(), queryFn: getMyStats, staleTime: STALE.assignments });
