/**
 * /intake (issue 51): the inbox of documents from the scanners, the mailbox and uploads, for
 * admins and the staff granted the intake permission (the server refuses everyone else). New
 * items first, a page at a time; another status on request (filed: also those a cover sheet
 * routed). Items arriving or filed by others show without a reload (the intake's live events).
 */
import { useState } from 'react';
import { useNotify } from '../../../components/Notifications';
import { Pager } from '../../../components/Pager';
import { QueryBoundary } from '../../../components/QueryBoundary';
import { RefreshControl } from '../../../components/RefreshControl';
import { PageHeader } from '../../../components/States';
import { errorMessage } from '../../../lib/api/client';
import type { IntakeItem, IntakeStatusFilter } from '../../../lib/api/types';
import { pageCount } from '../../../lib/pager';
import { openItemContent } from '../api/get-content';
import { INTAKE_PAGE_SIZE, useIntakeItems } from '../api/get-items';
import { downloadSeparatorSheet } from '../api/separator-sheet';
import { FileItemDialog } from '../components/FileItemDialog';
import { IntakeTable, type ItemAction } from '../components/IntakeTable';
import { IntakeUpload } from '../components/IntakeUpload';
import { ItemDetailsDialog } from '../components/ItemDetailsDialog';
import { DeleteItemDialog, RotateDialog, SplitDialog } from '../components/ReshapeDialogs';
import { INTAKE_MSG } from '../messages';

const STATUSES: { value: IntakeStatusFilter; label: string }[] = [
  { value: 'new', label: 'New items' },
  { value: 'filed', label: 'Filed' },
  { value: 'deleted', label: 'Deleted' },
  { value: 'all', label: 'All' },
];

type DialogAction = Exclude<ItemAction, 'open'>;

export default function IntakePage() {
  const [status, setStatus] = useState<IntakeStatusFilter>('new');
  const [page, setPage] = useState(1);
  const query = useIntakeItems(status, page);
  const [open, setOpen] = useState<{ action: DialogAction; item: IntakeItem } | null>(null);
  const notify = useNotify();
  const pages = query.data ? pageCount(query.data.total, query.data.pageSize || INTAKE_PAGE_SIZE) : 1;
  // A page emptied by filing (or by others) shows the last page there is.
  if (query.data && !query.isPlaceholderData && page > pages) setPage(pages);

  const onAction = (action: ItemAction, item: IntakeItem) => {
    if (action === 'open') {
      openItemContent(item).catch((error: unknown) => notify('error', errorMessage(error, INTAKE_MSG.openFailed)));
      return;
    }
    setOpen({ action, item });
  };
  const done = (message: string | null) => {
    setOpen(null);
    if (message) notify('success', message);
  };
  const printSeparator = () =>
    downloadSeparatorSheet().catch((error: unknown) => notify('error', errorMessage(error, INTAKE_MSG.separatorFailed)));

  return (
    <>
      <PageHeader title={INTAKE_MSG.title}>
        <button type="button" className="btn" onClick={printSeparator}>
          {INTAKE_MSG.separatorSheet}
        </button>
        <RefreshControl query={query} />
      </PageHeader>
      <p className="muted">{INTAKE_MSG.intro}</p>
      <section className="panel" aria-labelledby="intake-inbox-heading">
        <div className="section-header">
          <h2 id="intake-inbox-heading">Inbox</h2>
          <div className="field">
            <label htmlFor="intake-status">{INTAKE_MSG.statusLabel}</label>
            <select
              id="intake-status"
              value={status}
              onChange={(event) => {
                setStatus(event.target.value as IntakeStatusFilter);
                setPage(1);
              }}
            >
              {STATUSES.map((option) => (
                <option key={option.value} value={option.value}>
                  {option.label}
                </option>
              ))}
            </select>
          </div>
        </div>
        <QueryBoundary
          query={query}
          messages={{ loading: INTAKE_MSG.loading, loadFailed: INTAKE_MSG.loadFailed, empty: status === 'new' ? INTAKE_MSG.empty : INTAKE_MSG.emptyOther }}
          isEmpty={(data) => data.items.length === 0}
        >
          {(data) => (
            <>
              <IntakeTable items={data.items} onAction={onAction} />
              <Pager label={INTAKE_MSG.pagerLabel} page={page} pages={pages} onPage={setPage} disabled={query.isPlaceholderData} />
            </>
          )}
        </QueryBoundary>
      </section>
      {/* After the inbox: a records team's day is mostly the inbox; uploads are the exception. */}
      <IntakeUpload />
      {open?.action === 'details' ? <ItemDetailsDialog item={open.item} onClose={() => setOpen(null)} /> : null}
      {open?.action === 'file' ? <FileItemDialog item={open.item} onDone={done} /> : null}
      {open?.action === 'split' ? <SplitDialog item={open.item} onDone={done} /> : null}
      {open?.action === 'rotate' ? <RotateDialog item={open.item} onDone={done} /> : null}
      {open?.action === 'delete' ? <DeleteItemDialog item={open.item} onDone={done} /> : null}
    </>
  );
}
