/** DELETE /api/auth/mfa/totp (a step-up route: the client asks "Confirm it's you" when needed). */
import { apiRequest } from '../../../lib/api/client';
import { mfaKeys, userKeys } from '../../../lib/queryKeys';
import { useInvalidatingMutation } from '../../../lib/useInvalidatingMutation';

export const removeTotp = (): Promise<unknown> => apiRequest<unknown>('/auth/mfa/totp', { method: 'DELETE' });

export const useRemoveTotp = () => useInvalidatingMutation(removeTotp, [mfaKeys.all, userKeys.all]);
