/** GET /api/users. */
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api/client';
import type { UsersResponse } from '../../../lib/api/types';
import { STALE } from '../../../lib/queryConfig';
import { userKeys } from './keys';

export const getUsers = (): Promise<UsersResponse> => apiRequest<UsersResponse>('/users');

export const usersQuery = () =>
  queryOptions({ queryKey: userKeys.list(), queryFn: getUsers, staleTime: STALE.users });

export const useUsers = () => useQuery(usersQuery());
