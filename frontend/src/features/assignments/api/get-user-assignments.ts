/** GET /api/assignments/users/{userId}. */
import { useQuery } from '@tanstack/react-query';
import { apiRequest, seg } from '../../../lib/api/client';
import type { UserAssignmentsResponse } from '../../../lib/api/types';
import { STALE } from '../../../lib/queryConfig';
import { assignmentKeys } from '../../../lib/queryKeys';

export const getUserAssignments = (userId: number): Promise<UserAssignmentsResponse> =>
  apiRequest<UserAssignmentsResponse>(`/assignments/users/${seg(userId)}`);

export const useUserAssignments = (userId: number) =>
  useQuery({
    queryKey: assignmentKeys.user(userId),
    queryFn: () => getUserAssignments(userId),
    staleTime: STALE.assignments,
  });
