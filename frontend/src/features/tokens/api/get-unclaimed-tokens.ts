/** GET /patients/admin/unclaimed (server root, admin). */
import { useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api/client';
import type { TokenListResponse } from '../../../lib/api/types';
import { tokenKeys } from '../../../lib/queryKeys';

export const getUnclaimedTokens = (): Promise<TokenListResponse> =>
  apiRequest<TokenListResponse>('/patients/admin/unclaimed', { base: 'root' });

export const useUnclaimedTokens = () => useQuery({ queryKey: tokenKeys.unclaimed(), queryFn: getUnclaimedTokens });
