/**
 * GET /api/emergency/session/status: whether the responder's own grant is still open (the
 * cookie authorises it; the answer says nothing else). Polled, so the page ends within seconds
 * of an admin's remote disconnect; only the neutral 404 means the grant is gone.
 */
import { useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api/client';
import { emergencyKeys } from '../../../lib/queryKeys';

/** How often the open page asks. */
export const STATUS_POLL_MS = 5000;

export const getEmergencyStatus = (): Promise<{ open: boolean }> =>
  apiRequest<{ open: boolean }>('/emergency/session/status', { anonymous: true });

/** The grant's state while enabled: first asked one interval after the page loaded it. */
export const useEmergencyStatus = (enabled: boolean) =>
  useQuery({
    queryKey: emergencyKeys.status,
    queryFn: getEmergencyStatus,
    enabled,
    initialData: { open: true },
    staleTime: STATUS_POLL_MS,
    refetchInterval: STATUS_POLL_MS,
    refetchOnWindowFocus: true, // a phone woken after minutes asks at once
    retry: false,
  });
