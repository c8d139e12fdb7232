/** POST /api/auth/mfa/totp: a new pending authenticator secret (nothing changes until confirmed). */
import { useMutation } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api/client';
import type { TotpSetup } from '../../../lib/api/types';

export const startTotp = (): Promise<TotpSetup> => apiRequest<TotpSetup>('/auth/mfa/totp', { method: 'POST' });

export const useStartTotp = () => useMutation({ mutationFn: startTotp });
