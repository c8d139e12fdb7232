/** A patient folder's access history for admins: every access to its data (the access report),
 * newest first, paged by cursor back in time, with its own CSV export (oldest first, a report).
 * Each page and export is audited. On a phone each entry's columns stack. */
import { useState } from 'react';
import { CursorPager } from '../../../components/CursorPager';
import { QueryBoundary } from '../../../components/QueryBoundary';
import { RoleBadge } from '../../../components/States';
import { Table } from '../../../components/Table';
import { formatDateTime } from '../../../lib/format';
import { exportAccessReport } from '../api/export-csv';
import { useAccessReport } from '../api/get-access-report';
import { ExportCsvButton } from './ExportCsvButton';
import { OperationCell } from './OperationCell';

export const MSG = {
  loading: 'Loading access history…',
  loadFailed: 'Failed to load access history',
  empty: 'No access recorded',
} as const;

const PAGE = 25;

export function AccessHistory({ containerName, folderName }: { containerName: string; folderName: string }) {
  const [cursors, setCursors] = useState<(number | null)[]>([null]);
  const cursor = cursors[cursors.length - 1] ?? null;
  const query = useAccessReport({ containerName, folderName, limit: PAGE, order: 'newest', ...(cursor === null ? {} : { cursor }) });
  const nextCursor = query.data?.nextCursor ?? null;
  return (
    <section className="panel" aria-labelledby="access-history">
      <div className="section-header">
        <h2 id="access-history">Access history</h2>
        <ExportCsvButton run={() => exportAccessReport({ containerName, folderName })} />
      </div>
      <QueryBoundary query={query} messages={MSG} isEmpty={(data) => data.entries.length === 0}>
        {(data) => (
          <Table columns={['When', 'User', 'Operation', 'File', 'From']} dense stack>
            {data.entries.map((entry) => (
              <tr key={entry.id}>
                <td data-label="When">
                  <time dateTime={entry.timestamp}>{formatDateTime(entry.timestamp)}</time>
                </td>
                <td data-label="User">
                  {entry.name || <span className="muted">Unknown</span>} {entry.role ? <RoleBadge role={entry.role} /> : null}
                </td>
                <td data-label="Operation">
                  <OperationCell operation={entry.operation} details={entry.details} />
                </td>
                <td data-label="File">{entry.blobName || '—'}</td>
                <td data-label="From">{entry.clientAddress || '—'}</td>
              </tr>
            ))}
          </Table>
        )}
      </QueryBoundary>
      <CursorPager label="Access history pages" cursors={cursors} setCursors={setCursors} nextCursor={nextCursor} busy={query.isFetching} />
    </section>
  );
}
