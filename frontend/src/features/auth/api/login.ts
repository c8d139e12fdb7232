/** POST /api/auth/login. */
import { useMutation } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api/client';
import type { LoginRequest, LoginResponse } from '../../../lib/api/types';
import { setToken } from '../../../lib/session';

export function login(body: LoginRequest): Promise<LoginResponse> {
  return apiRequest<LoginResponse>('/auth/login', { method: 'POST', body });
}

export function useLogin() {
  return useMutation({
    mutationFn: login,
    onSuccess: (data) => setToken(data.token),
  });
}
