/** GET /api/users/{id}. */
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest, seg } from '../../../lib/api/client';
import type { UserResponse } from '../../../lib/api/types';
import { STALE } from '../../../lib/queryConfig';
import { userKeys } from '../../../lib/queryKeys';

export const getUser = (id: number): Promise<UserResponse> => apiRequest<UserResponse>(`/users/${seg(id)}`);

export const userQuery = (id: number) =>
  queryOptions({ queryKey: userKeys.detail(id), queryFn: () => getUser(id), staleTime: STALE.users });

export const useUser = (id: number, enabled = true) => useQuery({ ...userQuery(id), enabled });
