/** GET /api/emergency/session: authorised by the responder's HttpOnly cookie, never by a staff token. */
import { useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api/client';
import type { EmergencyView } from '../../../lib/api/types';
import { emergencyKeys } from '../../../lib/queryKeys';

export const getEmergencySession = (): Promise<EmergencyView> =>
  apiRequest<EmergencyView>('/emergency/session', { anonymous: true });

export const useEmergencySession = () =>
  useQuery({
    queryKey: emergencyKeys.session,
    queryFn: getEmergencySession,
    // Every failure is the same neutral answer: retrying would not change it.
    retry: false,
    staleTime: Infinity,
  });
