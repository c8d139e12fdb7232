/** CSV downloads: the audit log's filtered view (GET /api/blobs/audit?format=csv) and a folder's
 * access report (GET /api/blobs/audit/report?format=csv). The server audits each export. */
import { apiBlob } from '../../../lib/api/client';
import type { AccessReportQuery, AuditQuery } from '../../../lib/api/types';
import { saveBlob } from '../../../lib/download';

const today = () => new Date().toISOString().slice(0, 10);

/** The query without its page (cursor, limit): an export has every page. */
function withoutPage<Q extends { cursor?: number | null; limit?: number }>(query: Q): Omit<Q, 'cursor' | 'limit'> {
  const filters: Q = { ...query };
  delete filters.cursor;
  delete filters.limit;
  return filters;
}

export async function exportAuditLog(query: AuditQuery): Promise<void> {
  const filters = withoutPage(query);
  saveBlob(await apiBlob('/blobs/audit', { query: { ...filters, format: 'csv' } }), `audit-log_${today()}.csv`);
}

export async function exportAccessReport(query: AccessReportQuery): Promise<void> {
  const filters = withoutPage(query);
  const blob = await apiBlob('/blobs/audit/report', { query: { ...filters, format: 'csv' } });
  saveBlob(blob, `access-report_${query.containerName}_${query.folderName}_${today()}.csv`);
}
