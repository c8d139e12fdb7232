/** POST /api/auth/logout and /api/auth/logout-all, then leave for the login page (or, for a single sign-on session, the provider's end-session page, which comes back to it). */
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
      let endSessionUrl: string | null = null;
      try {
        if (everywhere) await logoutAll();
        else endSessionUrl = (await logout()).endSessionUrl ?? null;
      } catch {
        // Signing out locally must work even when the server cannot be reached.
      }
      closeViewerWindows();
      clearToken();
      // Cached patient data never outlives the session that loaded it, on either path.
      queryClient.clear();
      // A session opened through the identity provider signs out there too; it sends the browser back to /login.
      if (endSessionUrl) window.location.assign(endSessionUrl);
      else navigate('/login', { replace: true });
    },
    [queryClient, navigate],
  );
}
