/** A patient folder's access history for admins: every access to its data (the access report),
 * oldest first, paged by cursor, with its own CSV export. Each page and export is audited. */
import { useState } from 'react';
import { CursorPager } from '../../../components/CursorPager';
import { QueryBoundary } from '../../../components/QueryBoundary';
import { RoleBadge } from '../../../components/States';
import { Table } from '../../../components/Table';
import { formatDateTime } from '../../../lib/format';
import { exportAccessReport } from '../api/export-csv';
import { useAccessReport } from '../api/get-access-report';
import { ExportCsvButton } from './ExportCsvButton';

export const MSG = {
  loading: 'Loading access history…',
  loadFailed: 'Failed to load access history',
  empty: 'No access recorded',
} as const;

const PAGE = 25;

export function AccessHistory({ containerName, folderName }: { containerName: string; folderName: string }) {
  const [cursors, setCursors] = useState<(number | null)[]>([null]);
  const cursor = cursors[cursors.length - 1] ?? null;
  const query = useAccessReport({ containerName, folderName, limit: PAGE, ...(cursor === null ? {} : { cursor }) });
  const nextCursor = query.data?.nextCursor ?? null;
  return (
    <section className="panel" aria-labelledby="access-history">
      <div className="section-header">
        <h2 id="access-history">Access history</h2>
        <ExportCsvButton run={() => exportAccessReport({ containerName, folderName })} />
      </div>
      <QueryBoundary query={query} messages={MSG} isEmpty={(data) => data.entries.length === 0}>
        {(data) => (
          <Table columns={['When', 'User', 'Operation', 'File', 'From']} dense>
            {data.entries.map((entry) => (
              <tr key={entry.id}>
                <td>
                  <time dateTime={entry.timestamp}>{formatDateTime(entry.timestamp)}</time>
                </td>
                <td>
                  {entry.name || <span className="muted">Unknown</span>} {entry.role ? <RoleBadge role={entry.role} /> : null}
                </td>
                <td>
                  <code>{entry.operation}</code>
                  {entry.details ? <div className="muted small">{entry.details}</div> : null}
                </td>
                <td>{entry.blobName || '—'}</td>
                <td>{entry.clientAddress || '—'}</td>
              </tr>
            ))}
          </Table>
        )}
      </QueryBoundary>
      <CursorPager label="Access history pages" cursors={cursors} setCursors={setCursors} nextCursor={nextCursor} busy={query.isFetching} />
    </section>
  );
}
