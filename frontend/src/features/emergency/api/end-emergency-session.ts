/** DELETE /api/emergency/session: the responder ends access now (the server drops the cookie). */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api/client';
import { emergencyKeys } from '../../../lib/queryKeys';

export const endEmergencySession = (): Promise<{ message: string }> =>
  apiRequest<{ message: string }>('/emergency/session', { method: 'DELETE', anonymous: true });

export function useEndEmergencySession() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: endEmergencySession,
    onSettled: () => queryClient.cancelQueries({ queryKey: emergencyKeys.session }),
  });
}
