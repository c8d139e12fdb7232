/** DELETE /api/users/{id}/sso-link: remove a user's link to the identity provider (audited). */
import { apiRequest, seg } from '../../../lib/api/client';
import type { SsoUnlinkResponse } from '../../../lib/api/types';
import { userKeys } from '../../../lib/queryKeys';
import { useInvalidatingMutation } from '../../../lib/useInvalidatingMutation';

export const unlinkSso = (id: number): Promise<SsoUnlinkResponse> =>
  apiRequest<SsoUnlinkResponse>(`/users/${seg(id)}/sso-link`, { method: 'DELETE' });

export const useUnlinkSso = () => useInvalidatingMutation(unlinkSso, [userKeys.all]);
