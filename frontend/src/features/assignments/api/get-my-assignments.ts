/** GET /api/assignments/my-assignments. */
import { useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api/client';
import type { MyAssignmentsResponse } from '../../../lib/api/types';
import { STALE } from '../../../lib/queryConfig';
import { assignmentKeys } from '../../../lib/queryKeys';

export const getMyAssignments = (): Promise<MyAssignmentsResponse> =>
  apiRequest<MyAssignmentsResponse>('/assignments/my-assignments');

export const useMyAssignments = () =>
  useQuery({ queryKey: assignmentKeys.mine(), queryFn: getMyAssignments, staleTime: STALE.assignments });
