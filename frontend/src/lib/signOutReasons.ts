/** What the login page says after the server ended a session: why, when session:revoked said
 * (bff/live/events.py lists the reasons); the spec's own words for expiry and deletion. */

export const SIGNED_OUT_MSG = {
  expired: 'Your session has expired or your account has been deleted. Please log in again.',
  passwordChanged: 'Your password was changed by an administrator. Please log in again.',
  roleChanged: 'Your role was changed by an administrator. Please log in again.',
  otherSession: 'You were signed out from another session. Please log in again.',
  mfaReset: 'Your second factor was reset by an administrator. Please log in again.',
} as const;

const BY_REASON: Record<string, string> = {
  'password-changed': SIGNED_OUT_MSG.passwordChanged,
  'role-changed': SIGNED_OUT_MSG.roleChanged,
  'logout-all': SIGNED_OUT_MSG.otherSession,
  'mfa-changed': SIGNED_OUT_MSG.otherSession,
  'mfa-enrolled': SIGNED_OUT_MSG.otherSession,
  'mfa-reset': SIGNED_OUT_MSG.mfaReset,
};

/** The notice for a session ended for `reason` (the login page's `reason` parameter); expiry,
 * deletion, an unknown reason or none: the spec's message. */
export function signedOutMessage(reason: string | null | undefined): string {
  return (reason && Object.hasOwn(BY_REASON, reason) ? BY_REASON[reason] : undefined) ?? SIGNED_OUT_MSG.expired;
}
