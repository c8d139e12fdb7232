/** A Refresh button that forces a fetch past the cache, with the last-updated time. */
import { formatTime } from '../lib/format';

interface RefreshControlProps {
  onRefresh: () => void;
  refreshing: boolean;
  updatedAt: number;
}

export function RefreshControl({ onRefresh, refreshing, updatedAt }: RefreshControlProps) {
  return (
    <div className="refresh">
      {updatedAt > 0 ? <span className="muted">Last updated: {formatTime(updatedAt)}</span> : null}
      <button type="button" className="btn" onClick={onRefresh} disabled={refreshing}>
        {refreshing ? 'Refreshing…' : 'Refresh'}
      </button>
    </div>
  );
}
