/** Whether a user has a second factor (an authenticator app or a passkey), as a badge. */
export function SecondFactorBadge({ on }: { on: boolean }) {
  return <span className={on ? 'badge badge-ok' : 'badge badge-muted'}>{on ? '2FA on' : '2FA off'}</span>;
}
