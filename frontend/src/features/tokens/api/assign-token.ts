/** POST /patients/admin/assign: link a token to a patient folder (reported as a reassignment when it moves one). */
import { apiRequest } from '../../../lib/api/client';
import type { AssignTokenRequest, AssignTokenResponse } from '../../../lib/api/types';
import { tokenKeys } from '../../../lib/queryKeys';
import { useInvalidatingMutation } from '../../../lib/useInvalidatingMutation';

export const assignToken = (body: AssignTokenRequest): Promise<AssignTokenResponse> =>
  apiRequest<AssignTokenResponse>('/patients/admin/assign', { method: 'POST', body, base: 'root' });

export const useAssignToken = () => useInvalidatingMutation(assignToken, [tokenKeys.all]);
