/** GET /api/users/dashboard (admin dashboard). */
import { useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api/client';
import type { DashboardResponse } from '../../../lib/api/types';
import { STALE } from '../../../lib/queryConfig';
import { userKeys } from '../../../lib/queryKeys';

export const getDashboard = (): Promise<DashboardResponse> => apiRequest<DashboardResponse>('/users/dashboard');

export const useDashboard = () =>
  useQuery({ queryKey: userKeys.dashboard(), queryFn: getDashboard, staleTime: STALE.users });
