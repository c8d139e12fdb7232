/** A Refresh button that forces a fetch past the cache, with the last-updated time. */
import { formatTime } from '../lib/format';

/** What the control reads of a query: TanStack Query's result, or two results combined. */
export interface Refreshable {
  refetch: () => unknown;
  isFetching: boolean;
  /** When the data last arrived; 0 before it first did. */
  dataUpdatedAt: number;
}

export function RefreshControl({ query }: { query: Refreshable }) {
  return (
    <div className="refresh">
      {/* Always there, and a fixed width: the time arriving moves nothing else on the screen. */}
      <span className="muted refresh-time">{query.dataUpdatedAt > 0 ? `Last updated: ${formatTime(query.dataUpdatedAt)}` : null}</span>
      <button type="button" className="btn" onClick={() => void query.refetch()} disabled={query.isFetching}>
        {query.isFetching ? 'Refreshing…' : 'Refresh'}
      </button>
    </div>
  );
}
