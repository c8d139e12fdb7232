/** POST /api/auth/login: a session, a session restricted to setting up a second factor, or the second step's mfaToken. */
import { useMutation } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api/client';
import type { LoginRequest, LoginResponse, MfaRequired } from '../../../lib/api/types';
import { setToken } from '../../../lib/session';

export function login(body: LoginRequest): Promise<LoginResponse> {
  return apiRequest<LoginResponse>('/auth/login', { method: 'POST', body });
}

/** The second step is needed: the password was right and the user has a second factor. */
export function needsSecondStep(data: LoginResponse): data is MfaRequired {
  return 'mfaRequired' in data && data.mfaRequired;
}

export function useLogin() {
  return useMutation({
    mutationFn: login,
    onSuccess: (data) => {
      if ('token' in data) setToken(data.token);
    },
  });
}
