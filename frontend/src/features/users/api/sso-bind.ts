/** PUT /api/users/{id}/sso-link: link a user to the identity provider's subject an admin entered or picked (audited; confirm-it's-you first). */
import { apiRequest, seg } from '../../../lib/api/client';
import type { SsoBindRequest, SsoBindResponse } from '../../../lib/api/types';
import { userKeys } from '../../../lib/queryKeys';
import { useInvalidatingMutation } from '../../../lib/useInvalidatingMutation';

export const bindSso = ({ id, ...body }: SsoBindRequest & { id: number }): Promise<SsoBindResponse> =>
  apiRequest<SsoBindResponse>(`/users/${seg(id)}/sso-link`, { method: 'PUT', body });

export const useBindSso = () => useInvalidatingMutation(bindSso, [userKeys.all]);
