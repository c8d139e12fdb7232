/** GET /api/users: every user with their containers and folder count (not every folder). */
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api/client';
import type { UserSummariesResponse } from '../../../lib/api/types';
import { STALE } from '../../../lib/queryConfig';
import { userKeys } from '../../../lib/queryKeys';

export const getUsers = (): Promise<UserSummariesResponse> => apiRequest<UserSummariesResponse>('/users');

export const usersQuery = () =>
  queryOptions({ queryKey: userKeys.list(), queryFn: getUsers, staleTime: STALE.users });

export const useUsers = () => useQuery(usersQuery());
