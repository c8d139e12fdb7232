/** GET /api/auth/validate-token: whether this session is still valid (a 401 applies the 401 rule). */
import { apiRequest } from '../../../lib/api/client';
import type { ValidateResponse } from '../../../lib/api/types';

export const validateToken = (): Promise<ValidateResponse> => apiRequest<ValidateResponse>('/auth/validate-token');
