/** /admin/quarantine: files the virus scanner refused or found on a rescan (issue 49), newest
 * first, a page at a time; each can be deleted for good. A new finding (a live event) refreshes it. */
import { useState } from 'react';
import { Pager } from '../../../components/Pager';
import { QueryBoundary } from '../../../components/QueryBoundary';
import { RefreshControl } from '../../../components/RefreshControl';
import { RowButton } from '../../../components/RowButton';
import { PageHeader } from '../../../components/States';
import { ActionsCell, Table } from '../../../components/Table';
import type { QuarantinedFile } from '../../../lib/api/types';
import { formatDateTime, formatFileSize } from '../../../lib/format';
import { pageCount } from '../../../lib/pager';
import { QUARANTINE_PAGE_SIZE, useQuarantine } from '../api/get-quarantine';
import { DeleteQuarantinedDialog } from '../components/DeleteQuarantinedDialog';
import { SCAN_MSG } from '../messages';

const MESSAGES = { loading: SCAN_MSG.loading, loadFailed: SCAN_MSG.quarantineFailed, empty: SCAN_MSG.empty };

export default function QuarantinePage() {
  const [page, setPage] = useState(1);
  const query = useQuarantine(page);
  const [deleting, setDeleting] = useState<QuarantinedFile | null>(null);
  const pages = query.data ? pageCount(query.data.total, query.data.pageSize || QUARANTINE_PAGE_SIZE) : 1;
  // A page emptied by deletions (or another admin's) shows the last page there is.
  if (query.data && !query.isPlaceholderData && page > pages) setPage(pages);

  return (
    <>
      <PageHeader title={SCAN_MSG.title}>
        <RefreshControl query={query} />
      </PageHeader>
      <p className="muted">{SCAN_MSG.intro}</p>
      <section className="panel" aria-label="Quarantined files">
        <QueryBoundary query={query} messages={MESSAGES} isEmpty={(data) => data.quarantined.length === 0}>
          {(data) => (
            <>
              <QuarantineTable files={data.quarantined} onDelete={setDeleting} />
              <Pager label="Quarantine pages" page={page} pages={pages} onPage={setPage} disabled={query.isPlaceholderData} />
            </>
          )}
        </QueryBoundary>
      </section>
      {deleting ? <DeleteQuarantinedDialog file={deleting} onDone={() => setDeleting(null)} /> : null}
    </>
  );
}

export function QuarantineTable({ files, onDelete }: { files: QuarantinedFile[]; onDelete: (file: QuarantinedFile) => void }) {
  return (
    <Table caption="Quarantined files" columns={['File', 'Where', 'Found', 'Uploaded by', 'When', 'Reason']} actions stack>
      {files.map((file) => (
        <tr key={file.id}>
          <td data-label="File">
            {/* One box: a stacked row (phone) lays the cell out as label and one value. */}
            <div>
              <div>{file.name}</div>
              <div className="muted small">
                {formatFileSize(file.size)}
                {file.kept ? null : ` · ${SCAN_MSG.notKept}`}
              </div>
            </div>
          </td>
          <td data-label="Where">
            {file.container} / {file.folder}
          </td>
          <td data-label="Found">
            <code>{file.signature}</code>
          </td>
          <td data-label="Uploaded by">{file.uploadedByName || '—'}</td>
          <td data-label="When">{formatDateTime(file.foundAt)}</td>
          <td data-label="Reason">{file.reason === 'rescan' ? SCAN_MSG.reasonRescan : SCAN_MSG.reasonUpload}</td>
          <ActionsCell>
            <RowButton kind="danger" label={`Delete ${file.name} from the quarantine`} onClick={() => onDelete(file)}>
              Delete
            </RowButton>
          </ActionsCell>
        </tr>
      ))}
    </Table>
  );
}
