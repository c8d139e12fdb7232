/** POST /api/auth/logout and /api/auth/logout-all, then leave for the login page. */
import { useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import { useNavigate } from 'react-router-dom';
import { apiRequest } from '../../../lib/api/client';
import type { LogoutAllResponse, LogoutResponse } from '../../../lib/api/types';
import { clearToken } from '../../../lib/session';
import { closeViewerWindows } from '../../../lib/viewerWindows';

export function logout(): Promise<LogoutResponse> {
  return apiRequest<LogoutResponse>('/auth/logout', { method: 'POST', ignoreUnauthorized: true });
}

export function logoutAll(): Promise<LogoutAllResponse> {
  return apiRequest<LogoutAllResponse>('/auth/logout-all', { method: 'POST', ignoreUnauthorized: true });
}

/** Logout closes viewer windows and clears the token; Logout All Sessions also clears cached data. */
export function useLogout(): (everywhere: boolean) => Promise<void> {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  return useCallback(
    async (everywhere: boolean) => {
      try {
        await (everywhere ? logoutAll() : logout());
      } catch {
        // Signing out locally must work even when the server cannot be reached.
      }
      closeViewerWindows();
      clearToken();
      // Cached patient data never outlives the session that loaded it, on either path.
      queryClient.clear();
      navigate('/login', { replace: true });
    },
    [queryClient, navigate],
  );
}
