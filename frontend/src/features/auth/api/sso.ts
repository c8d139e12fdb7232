/** Single sign-on: GET /api/auth/oidc/config (the login page's button) and POST /api/auth/oidc/complete (the callback's one-time code traded for a sign-in). */
import { useMutation, useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api/client';
import type { LoginResponse, SsoCompleteRequest, SsoConfig } from '../../../lib/api/types';
import { ssoKeys } from '../../../lib/queryKeys';
import { setToken } from '../../../lib/session';

/** Where the browser goes to sign in at the identity provider (a full navigation, not a fetch). */
export const SSO_START = '/api/auth/oidc/start';

export const getSsoConfig = (): Promise<SsoConfig> => apiRequest<SsoConfig>('/auth/oidc/config');

export const useSsoConfig = () =>
  useQuery({ queryKey: ssoKeys.config, queryFn: getSsoConfig, staleTime: Infinity, retry: false });

export function completeSso(body: SsoCompleteRequest): Promise<LoginResponse> {
  return apiRequest<LoginResponse>('/auth/oidc/complete', { method: 'POST', body });
}

/** The same answers as a password sign-in: the token is kept the same way. */
export function useCompleteSso() {
  return useMutation({
    mutationFn: completeSso,
    onSuccess: (data) => {
      if ('token' in data) setToken(data.token);
    },
  });
}

/** The one-time code the callback left in the URL's fragment (`#sso=...`), or null. */
export function ssoCodeIn(hash: string): string | null {
  const match = /^#sso=([A-Za-z0-9_-]{1,100})$/.exec(hash);
  return match?.[1] ?? null;
}

/** What the login page says for the callback's `?sso=<reason>`. */
export function ssoMessage(reason: string, provider: string): string {
  switch (reason) {
    case 'unavailable':
      return `${provider} cannot be reached right now. Please try again later.`;
    case 'no_role':
      return `Your ${provider} account has no role in Patient Records. Ask your administrator for access.`;
    case 'unknown_user':
      return `Your ${provider} account is not set up in Patient Records. Ask your administrator for access.`;
    case 'provider_error':
      return `Sign-in at ${provider} was cancelled or refused.`;
    case 'busy':
      return 'Too many sign-in attempts. Please try again in a few minutes.';
    case 'bad_state':
      return 'That sign-in took too long or was started in another window. Please try again.';
    default:
      return `The answer from ${provider} could not be verified. Please try again.`;
  }
}
