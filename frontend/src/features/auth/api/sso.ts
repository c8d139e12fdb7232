/** Single sign-on: GET /api/auth/oidc/config (the login page's button), POST /api/auth/oidc/complete (the callback's one-time code traded for a sign-in), POST /api/auth/oidc/link and /link-code (an account not linked yet, proved by its password or by the link code an administrator issued), and the mark of the tab that started a sign-in. */
import { useMutation, useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api/client';
import type { LoginResponse, SsoCompleteRequest, SsoConfig, SsoLinkCodeRequest, SsoLinkRequest } from '../../../lib/api/types';
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

/** The same answers as a password sign-in, for an account linked now by its password, or by an administrator's link code. */
export function linkSso(body: SsoLinkRequest | SsoLinkCodeRequest): Promise<LoginResponse> {
  const path = 'linkCode' in body ? '/auth/oidc/link-code' : '/auth/oidc/link';
  return apiRequest<LoginResponse>(path, { method: 'POST', body });
}

export function useLinkSso() {
  return useMutation({
    mutationFn: linkSso,
    onSuccess: (data) => {
      if ('token' in data) setToken(data.token);
    },
  });
}

/** What the callback left in the URL's fragment: a sign-in's one-time code (`#sso=...`), an offer to link an account (`#sso-link=...`), or null. */
export function ssoCodeIn(hash: string): { code: string; link: boolean } | null {
  const match = /^#sso(-link)?=([A-Za-z0-9_-]{1,100})$/.exec(hash);
  return match?.[2] ? { code: match[2], link: match[1] !== undefined } : null;
}

const STARTED = 'bff-sso-started';
const STARTED_MS = 15 * 60 * 1000; // longer than the server's 10 minutes for a sign-in

/** The "Sign in with ..." link was followed in this tab (sessionStorage: this tab only). */
export function markSsoStarted(): void {
  try {
    window.sessionStorage.setItem(STARTED, String(Date.now()));
  } catch {
    // Storage refused (a private window's quota): the code is then not taken up here.
  }
}

/** Whether this tab started a sign-in lately: only then is a code in the address taken up, so a link to /login#sso=... made elsewhere signs nobody in. */
export function ssoStartedHere(now = Date.now()): boolean {
  try {
    const at = Number(window.sessionStorage.getItem(STARTED));
    return at > 0 && now - at < STARTED_MS;
  } catch {
    return false;
  }
}

/** The mark is used up once the code in the address was looked at. */
export function clearSsoStarted(): void {
  try {
    window.sessionStorage.removeItem(STARTED);
  } catch {
    // nothing stored
  }
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
    case 'admin_role':
      return `Your role at ${provider} does not match your Patient Records account. Ask an administrator.`;
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
