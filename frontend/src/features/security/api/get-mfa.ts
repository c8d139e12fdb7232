/** GET /api/auth/mfa: the signed-in user's own second factors. */
import { useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api/client';
import type { MfaStatus } from '../../../lib/api/types';
import { mfaKeys } from '../../../lib/queryKeys';

export const getMfa = (): Promise<MfaStatus> => apiRequest<MfaStatus>('/auth/mfa');

export const useMfa = () => useQuery({ queryKey: mfaKeys.status(), queryFn: getMfa });
