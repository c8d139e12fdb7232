/** POST /api/auth/confirm-identity: the password or a current code; a step-up proof for one retry. */
import { apiRequest } from '../../../lib/api/client';
import type { ConfirmIdentity, IdentityConfirmed } from '../../../lib/api/types';

export const confirmIdentity = (body: ConfirmIdentity): Promise<IdentityConfirmed> =>
  apiRequest<IdentityConfirmed>('/auth/confirm-identity', { method: 'POST', body });
