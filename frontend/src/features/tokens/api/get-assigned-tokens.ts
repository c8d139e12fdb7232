/** GET /patients/admin/assigned (server root, admin): active and revoked tokens. */
import { useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api/client';
import type { TokenListResponse } from '../../../lib/api/types';
import { tokenKeys } from '../../../lib/queryKeys';

export const getAssignedTokens = (): Promise<TokenListResponse> =>
  apiRequest<TokenListResponse>('/patients/admin/assigned', { base: 'root' });

export const useAssignedTokens = () => useQuery({ queryKey: tokenKeys.assigned(), queryFn: getAssignedTokens });
