/** The audit log's verified state: "Verified up to entry N at {time}" from the latest signed
 * checkpoint, or a red banner when the server's periodic verification found a break. */
import { Banner } from '../../../components/Banner';
import { formatDateTime } from '../../../lib/format';
import { useAuditStatus } from '../api/get-audit-status';

export function AuditStatusBanner() {
  const status = useAuditStatus();
  const data = status.data;
  // Until the status arrives, an empty line; each line keeps two lines' height (the longest
  // wraps to two on a tablet), so the filters below stay put when it arrives.
  if (!data) return <p className="muted small audit-status" aria-hidden="true">&nbsp;</p>;
  if (data.broken) {
    const at = data.broken.entryId ? ` at entry ${data.broken.entryId}` : '';
    return (
      <Banner kind="error">
        Audit log verification failed{at}: {data.broken.reason} (found {formatDateTime(data.broken.foundAt)}).
      </Banner>
    );
  }
  if (data.verifiedUpTo === null || !data.verifiedAt) {
    return <p className="muted small audit-status">Not verified yet: the first checkpoint is written within minutes of new entries.</p>;
  }
  return (
    <p className="muted small audit-status" role="status">
      Verified up to entry {data.verifiedUpTo} at {formatDateTime(data.verifiedAt)}
    </p>
  );
}
