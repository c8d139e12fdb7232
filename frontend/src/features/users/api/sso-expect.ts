/** PUT and DELETE /api/users/{id}/sso-expected: link a user at their next sign-in through the identity provider (once, within a week; audited), or withdraw it. */
import { apiRequest, seg } from '../../../lib/api/client';
import type { SsoCancelExpectedResponse, SsoExpectResponse } from '../../../lib/api/types';
import { userKeys } from '../../../lib/queryKeys';
import { useInvalidatingMutation } from '../../../lib/useInvalidatingMutation';

export const expectSso = (id: number): Promise<SsoExpectResponse> =>
  apiRequest<SsoExpectResponse>(`/users/${seg(id)}/sso-expected`, { method: 'PUT' });

export const cancelExpectedSso = (id: number): Promise<SsoCancelExpectedResponse> =>
  apiRequest<SsoCancelExpectedResponse>(`/users/${seg(id)}/sso-expected`, { method: 'DELETE' });

export const useExpectSso = () => useInvalidatingMutation(expectSso, [userKeys.all]);
export const useCancelExpectedSso = () => useInvalidatingMutation(cancelExpectedSso, [userKeys.all]);
