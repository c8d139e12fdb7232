/** The session token in local storage, the user it carries, and the one session-expiry path. */
import type { TokenUser } from './api/types';
import { isRole } from './roles';
import { closeViewerWindows } from './viewerWindows';

export const TOKEN_KEY = 'token';
export const LOGIN_PATH = '/login';
export const EXPIRED_PATH = '/login?session=expired';
const CHANGE_EVENT = 'session-token-change';

export function getToken(): string | null {
  try {
    return window.localStorage.getItem(TOKEN_KEY);
  } catch {
    return null;
  }
}

let expired = false;
/** Why the server ended the session, when it said (session:revoked's reason), else null. */
let endReason: string | null = null;
/** An expiry before the app registered its handler (a first load's prefetch met a 401). */
let pendingExpiry = false;

/** Whether the last session ended by expiry (a 401 or removal elsewhere), not by logout. */
export function sessionExpired(): boolean {
  return expired;
}

/** The reasons the login page words (lib/signOutReasons.ts); any other is plain expiry. */
const WORDED_REASONS = new Set(['password-changed', 'role-changed', 'logout-all', 'mfa-changed', 'mfa-enrolled', 'mfa-reset']);

/** The login page after an expiry: /login?session=expired, with the server's reason when it
 * gave one the login page words (a short code, never a detail of the user). */
export function expiredPath(reason: string | null = endReason): string {
  return reason && WORDED_REASONS.has(reason) ? `${EXPIRED_PATH}&reason=${reason}` : EXPIRED_PATH;
}

export function setToken(token: string): void {
  expired = false;
  endReason = null;
  pendingExpiry = false;
  window.localStorage.setItem(TOKEN_KEY, token);
  window.dispatchEvent(new Event(CHANGE_EVENT));
}

export function clearToken(): void {
  expired = false;
  endReason = null;
  pendingExpiry = false;
  window.localStorage.removeItem(TOKEN_KEY);
  window.dispatchEvent(new Event(CHANGE_EVENT));
}

/** Whether a storage event says another tab removed the token (its removal or a clear). */
function removedElsewhere(event: StorageEvent): boolean {
  if (event.key === TOKEN_KEY) return event.newValue === null && event.oldValue !== null;
  return event.key === null && getToken() === null;
}

/**
 * Subscribe to token changes in this tab and in other tabs. A token removed in another tab is
 * an expiry here (spec section 4), applied before the listener hears of it: otherwise the
 * re-render it causes would send a guarded screen to plain /login first.
 */
export function subscribeToken(listener: () => void): () => void {
  const onStorage = (event: StorageEvent) => {
    if (removedElsewhere(event)) expireSession();
    if (event.key === TOKEN_KEY || event.key === null) listener();
  };
  window.addEventListener(CHANGE_EVENT, listener);
  window.addEventListener('storage', onStorage);
  return () => {
    window.removeEventListener(CHANGE_EVENT, listener);
    window.removeEventListener('storage', onStorage);
  };
}

function decodeBase64Url(part: string): string {
  const base64 = part.replace(/-/g, '+').replace(/_/g, '/');
  const padded = base64 + '='.repeat((4 - (base64.length % 4)) % 4);
  const bytes = Uint8Array.from(atob(padded), (c) => c.charCodeAt(0));
  return new TextDecoder().decode(bytes);
}

function claimsOf(token: string | null): Record<string, unknown> | null {
  const payload = token?.split('.')[1];
  if (!payload) return null;
  try {
    const claims: unknown = JSON.parse(decodeBase64Url(payload));
    return typeof claims === 'object' && claims !== null ? (claims as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** Whether a session token is restricted to setting up a second factor (a role that needs one). */
export function enrolmentRequired(token: string | null): boolean {
  return claimsOf(token)?.mfaEnrolment === true;
}

/** The user a session token carries: TokenUser, and whether an admin granted them the intake
 * permission (the token's `intake` claim; absent: not granted). */
export type SessionUser = TokenUser & { intake: boolean };

/** Whether the user may use the intake (issue 51): admins always, others when granted. The web
 * app only hides the intake from the others; the server refuses them (403). */
export const mayUseIntake = (user: SessionUser | null): boolean => user !== null && (user.role === 'admin' || user.intake);

/** The user a session token carries, or null when the token is missing or unreadable. */
export function userFromToken(token: string | null): SessionUser | null {
  if (!token) return null;
  const payload = token.split('.')[1];
  if (!payload) return null;
  try {
    const claims: unknown = JSON.parse(decodeBase64Url(payload));
    if (typeof claims !== 'object' || claims === null) return null;
    const user = (claims as { user?: unknown }).user;
    if (typeof user !== 'object' || user === null) return null;
    const u = user as Record<string, unknown>;
    const id = typeof u.userId === 'number' ? u.userId : u.id;
    if (typeof id !== 'number' || typeof u.name !== 'string' || typeof u.username !== 'string') {
      return null;
    }
    if (!isRole(u.role)) return null;
    return { id, userId: id, name: u.name, username: u.username, role: u.role, intake: u.intake === true };
  } catch {
    return null;
  }
}

type ExpiredHandler = () => void;
let expiredHandler: ExpiredHandler | null = null;

/** The app registers how to leave for the login page (router navigation, cache clearing); an
 * expiry that came before it is handled then. */
export function setSessionExpiredHandler(handler: ExpiredHandler | null): void {
  expiredHandler = handler;
  if (handler && pendingExpiry) {
    pendingExpiry = false;
    handler();
  }
}

/** The pages outside the signed-in layout: the login page and the SmartToken pages. */
function onPublicPage(): boolean {
  const path = window.location.pathname;
  return path === LOGIN_PATH || path === '/emergency' || path.startsWith('/patients/verify');
}

/**
 * The 401 rule (spec sections 4 and 8), in one place: clear the token, close file viewer
 * windows (this tab's and, through them, the other tabs') and go to /login?session=expired;
 * a public page (the login page, a responder's emergency page) stays where it is. `reason`:
 * session:revoked's, which the login page words ("Your password was changed by an
 * administrator"); a request's 401 that came first is corrected when the reason arrives.
 */
export function expireSession(reason: string | null = null): void {
  if (onPublicPage()) {
    closeViewerWindows();
    if (expired && reason && !endReason && window.location.pathname === LOGIN_PATH) {
      endReason = reason;
      if (expiredHandler && expiredPath() !== EXPIRED_PATH) expiredHandler();
    }
    return;
  }
  expired = true;
  endReason = reason;
  window.localStorage.removeItem(TOKEN_KEY);
  closeViewerWindows();
  // Before the app has registered its handler, the route guard sends the screen to the
  // expired login page (the token is gone and `expired` set) and the handler runs once registered.
  if (expiredHandler) expiredHandler();
  else pendingExpiry = true;
  window.dispatchEvent(new Event(CHANGE_EVENT));
}
