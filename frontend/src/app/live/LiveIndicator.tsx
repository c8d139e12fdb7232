/** The top bar's live-updates state: a dot and a short text, announced politely when it changes. */
import { useLive, type LiveStatus } from './LiveProvider';

export const LIVE_LABELS: Record<LiveStatus, string> = {
  off: '',
  connecting: 'Connecting…',
  connected: 'Live updates on',
  reconnecting: 'Reconnecting…',
  unavailable: 'Live updates off',
};

export function LiveIndicator() {
  const { status } = useLive();
  // The region stays mounted (empty when off) so that screen readers announce changes to it.
  return (
    <span className={`live-status live-${status}`} role="status" aria-live="polite" aria-atomic="true">
      {status === 'off' ? null : (
        <>
          <span className="live-dot" aria-hidden="true" />
          {LIVE_LABELS[status]}
        </>
      )}
    </span>
  );
}
