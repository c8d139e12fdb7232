/** GET /api/users/{id}/sso: the user's link to the identity provider, a pending "link at next sign-in", and the subjects seen lately without a link. */
import { useQuery } from '@tanstack/react-query';
import { apiRequest, seg } from '../../../lib/api/client';
import type { UserSso } from '../../../lib/api/types';
import { STALE } from '../../../lib/queryConfig';
import { userKeys } from '../../../lib/queryKeys';

export const getUserSso = (id: number): Promise<UserSso> => apiRequest<UserSso>(`/users/${seg(id)}/sso`);

export const useUserSso = (id: number) => useQuery({ queryKey: userKeys.sso(id), queryFn: () => getUserSso(id), staleTime: STALE.users });
