/** GET /api/users/with-assignments. */
import { useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api/client';
import type { UsersResponse } from '../../../lib/api/types';
import { STALE } from '../../../lib/queryConfig';
import { userKeys } from './keys';

export const getUsersWithAssignments = (): Promise<UsersResponse> =>
  apiRequest<UsersResponse>('/users/with-assignments');

export const useUsersWithAssignments = () =>
  useQuery({ queryKey: userKeys.withAssignments(), queryFn: getUsersWithAssignments, staleTime: STALE.assignments });
