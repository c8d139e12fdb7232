/** The admin dashboard's malware scanning notice (issue 49): no scanner configured says so
 * plainly; a configured one says whether it answers, how many files are in quarantine and how
 * many wait for a scan, with the way to the quarantine. */
import { Link } from 'react-router-dom';
import { Banner } from '../../../components/Banner';
import { QueryBoundary } from '../../../components/QueryBoundary';
import { Stat } from '../../../components/Stat';
import type { ScanStatus } from '../../../lib/api/types';
import { useScanStatus } from '../api/get-scan-status';
import { SCAN_MSG } from '../messages';

export const QUARANTINE_PATH = '/admin/quarantine';

export function ScanningCard() {
  const status = useScanStatus();
  return (
    <section className="panel scanning-card" aria-labelledby="scanning-heading">
      <h2 id="scanning-heading">{SCAN_MSG.heading}</h2>
      <QueryBoundary query={status} messages={{ loading: 'Loading…', loadFailed: SCAN_MSG.loadFailed }}>
        {(data) => <ScanningState status={data} />}
      </QueryBoundary>
    </section>
  );
}

export function ScanningState({ status }: { status: ScanStatus }) {
  if (!status.configured) {
    return (
      <>
        <Banner kind="warning">{SCAN_MSG.notConfigured}</Banner>
        <p className="muted small">{SCAN_MSG.notConfiguredHelp}</p>
        {status.quarantined > 0 ? <QuarantineLink status={status} /> : null}
      </>
    );
  }
  const state =
    status.available === null ? (
      <p className="muted">{SCAN_MSG.unknown}</p>
    ) : status.available ? (
      <p>{SCAN_MSG.available}</p>
    ) : (
      <Banner kind="error">{SCAN_MSG.unavailable(status.unavailable === 'hold')}</Banner>
    );
  return (
    <>
      {state}
      <QuarantineLink status={status} />
    </>
  );
}

function QuarantineLink({ status }: { status: ScanStatus }) {
  return (
    <>
      <div className="cards" aria-label="Scanning counts" role="group">
        <Stat label={SCAN_MSG.quarantined} value={status.quarantined} />
        {status.configured ? <Stat label={SCAN_MSG.held} value={status.held} /> : null}
      </div>
      <p>
        <Link to={QUARANTINE_PATH}>{SCAN_MSG.toQuarantine}</Link>
      </p>
    </>
  );
}
