/** /audit-logs: user (name and role), operation, resource and timestamp; the log's verified state;
 * filters (text ones match any part, any case, on the server); cursor paging; CSV export. */
import { useState, type FormEvent } from 'react';
import { Field, Options } from '../../../components/Field';
import { CursorPager } from '../../../components/CursorPager';
import { FilterActions } from '../../../components/FilterActions';
import { QueryBoundary } from '../../../components/QueryBoundary';
import { RefreshControl } from '../../../components/RefreshControl';
import { PageHeader, RoleBadge } from '../../../components/States';
import { Table } from '../../../components/Table';
import { OperationCell } from '../components/OperationCell';
import { operationWords } from '../operations';
import type { AuditQuery } from '../../../lib/api/types';
import { formatDateTime, resourceLabel } from '../../../lib/format';
import { AUDIT_OPERATIONS } from '../../../lib/server.gen';
import { exportAuditLog } from '../api/export-csv';
import { useAuditLogs } from '../api/get-audit-logs';
import { AuditStatusBanner } from '../components/AuditStatusBanner';
import { ExportCsvButton } from '../components/ExportCsvButton';

export const MSG = {
  loading: 'Loading audit logs…',
  loadFailed: 'Failed to load audit logs',
  empty: 'No audit logs found',
  badRange: 'The "From" time must be before the "To" time.',
} as const;

/** Operations the server records (generated from bff/audit/operations.py). */
export const OPERATIONS = AUDIT_OPERATIONS;

export const PAGE_SIZES = [25, 50, 100] as const;

interface Filters {
  operation: string;
  user: string;
  containerName: string;
  folderName: string;
  since: string;
  until: string;
}

const EMPTY: Filters = { operation: '', user: '', containerName: '', folderName: '', since: '', until: '' };

/** datetime-local text (local time) to an ISO 8601 instant with a zone, as the server needs. */
export function toIsoInstant(local: string): string | undefined {
  if (!local) return undefined;
  const date = new Date(local);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/** The server query for the applied filters. */
export function toAuditQuery(filters: Filters, limit: number, cursor: number | null): AuditQuery {
  const query: AuditQuery = { limit };
  if (filters.operation.trim()) query.operation = filters.operation.trim();
  if (filters.user.trim()) query.user = filters.user.trim();
  if (filters.containerName.trim()) query.containerName = filters.containerName.trim();
  if (filters.folderName.trim()) query.folderName = filters.folderName.trim();
  const since = toIsoInstant(filters.since);
  const until = toIsoInstant(filters.until);
  if (since) query.since = since;
  if (until) query.until = until;
  if (cursor !== null) query.cursor = cursor;
  return query;
}

export default function AuditLogsPage() {
  const [draft, setDraft] = useState<Filters>(EMPTY);
  const [applied, setApplied] = useState<Filters>(EMPTY);
  const [limit, setLimit] = useState<number>(50);
  // Cursors of the pages visited so far: [null (first page), cursor of page 2, ...].
  const [cursors, setCursors] = useState<(number | null)[]>([null]);
  const [formError, setFormError] = useState<string | null>(null);
  const query = useAuditLogs(toAuditQuery(applied, limit, cursors[cursors.length - 1] ?? null));

  const set = (field: keyof Filters) => (e: { target: { value: string } }) => setDraft((d) => ({ ...d, [field]: e.target.value }));
  const apply = (event: FormEvent) => {
    event.preventDefault();
    const since = toIsoInstant(draft.since);
    const until = toIsoInstant(draft.until);
    if (since && until && since >= until) {
      setFormError(MSG.badRange);
      return;
    }
    setFormError(null);
    setApplied(draft);
    setCursors([null]);
  };
  const clear = () => {
    setDraft(EMPTY);
    setApplied(EMPTY);
    setCursors([null]);
    setFormError(null);
  };

  const nextCursor = query.data?.nextCursor ?? null;
  return (
    <>
      <PageHeader title="Audit Logs">
        <ExportCsvButton run={() => exportAuditLog(toAuditQuery(applied, limit, null))} />
        <RefreshControl query={query} />
      </PageHeader>
      <AuditStatusBanner />
      <form className="panel filters" onSubmit={apply} aria-label="Audit log filters">
        <Field id="audit-operation" label="Operation">
          <select id="audit-operation" value={draft.operation} onChange={set('operation')}>
            <option value="">Any operation</option>
            {OPERATIONS.map((op) => (
              <option key={op} value={op}>
                {operationWords(op)} ({op})
              </option>
            ))}
          </select>
        </Field>
        <Field id="audit-user" label="User" value={draft.user} onChange={set('user')} placeholder="Any part of a name" />
        <Field id="audit-container" label="Container" value={draft.containerName} onChange={set('containerName')} />
        <Field id="audit-folder" label="Folder" value={draft.folderName} onChange={set('folderName')} />
        <Field id="audit-since" label="From" type="datetime-local" value={draft.since} onChange={set('since')} />
        <Field id="audit-until" label="To" type="datetime-local" value={draft.until} onChange={set('until')} />
        <FilterActions apply="Apply Filters" clear="Clear" onClear={clear} />
        {formError ? (
          <p className="field-error" role="alert">
            {formError}
          </p>
        ) : null}
      </form>
      <QueryBoundary query={query} messages={MSG} isEmpty={(data) => data.auditLogs.length === 0}>
        {(data) => (
          <Table columns={['User', 'Operation', 'Resource', 'Timestamp']} dense>
            {data.auditLogs.map((entry) => (
              <tr key={entry.id}>
                <td>
                  {entry.name || <span className="muted">Unknown</span>} {entry.role ? <RoleBadge role={entry.role} /> : null}
                </td>
                <td>
                  <OperationCell operation={entry.operation} details={entry.details} />
                </td>
                <td>{resourceLabel(entry)}</td>
                <td>
                  <time dateTime={entry.timestamp}>{formatDateTime(entry.timestamp)}</time>
                </td>
              </tr>
            ))}
          </Table>
        )}
      </QueryBoundary>
      {/* Shown with the entries, not before: a pager under an empty table would be pushed down
          the screen when they arrive (layout shift). */}
      {query.data ? (
        <CursorPager label="Audit log pages" cursors={cursors} setCursors={setCursors} nextCursor={nextCursor} busy={query.isFetching}>
          <label className="pager-size">
            Per page{' '}
            <select
              value={limit}
              onChange={(e) => {
                setLimit(Number(e.target.value));
                setCursors([null]);
              }}
            >
              <Options values={PAGE_SIZES} />
            </select>
          </label>
        </CursorPager>
      ) : null}
    </>
  );
}
