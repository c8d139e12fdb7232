/**
 * A folder's trash (admins): deleted files with who deleted them and when they will be purged;
 * Restore brings one back with its versions, Delete permanently wants DELETE typed first.
 */
import { useState } from 'react';
import { DeleteConfirmField, confirmsDelete } from '../../../components/DeleteConfirmField';
import { FormDialog } from '../../../components/FormDialog';
import { RowButton } from '../../../components/RowButton';
import { EmptyState, Loading } from '../../../components/States';
import { errorMessage } from '../../../lib/api/client';
import type { TrashListResponse, TrashedFile } from '../../../lib/api/types';
import { formatDateTime, formatFileSize } from '../../../lib/format';
import { usePurgeTrashed, useRestoreTrashed } from '../api/trash';
import { FILE_MSG } from '../messages';
import { useReportingDialog } from '../useReportingDialog';
import { versionsLabel } from './FileList';

interface TrashSectionProps {
  container: string;
  folder: string;
  /** Undefined while loading: the section keeps its place (and about its height) meanwhile. */
  trash: TrashListResponse | undefined;
  onReport: (kind: 'success' | 'error', message: string) => void;
}

export function TrashSection({ container, folder, trash, onReport }: TrashSectionProps) {
  const restore = useRestoreTrashed(container, folder);
  const purging = useReportingDialog<TrashedFile>(onReport);
  return (
    <section className="panel" aria-labelledby="trash-heading">
      <h2 id="trash-heading">Trash</h2>
      {trash ? (
        <p className="muted small">Deleted files stay here for {trash.trashDays} days, then they are deleted for good.</p>
      ) : (
        <p className="muted small" aria-hidden="true">
          &nbsp;
        </p>
      )}
      {!trash ? (
        <Loading />
      ) : trash.blobs.length === 0 ? (
        <EmptyState>{FILE_MSG.trashEmpty}</EmptyState>
      ) : (
        <ul className="file-list" aria-label="Deleted files">
          {trash.blobs.map((entry) => (
            <li key={`${entry.name}\u0000${entry.deletedAt}`} className="file-row">
              <div className="file-main">
                <span className="file-name">{entry.name}</span>
                <div className="file-meta muted small">
                  <span>
                    Deleted {formatDateTime(entry.deletedAt)} by {entry.deletedBy.name}
                  </span>
                  <span>Purged after {formatDateTime(entry.purgeAfter)}</span>
                  <span>{formatFileSize(entry.contentLength)}</span>
                  <span>{versionsLabel(entry.versionCount)}</span>
                </div>
              </div>
              <div className="file-actions">
                <RowButton
                  kind="primary"
                  label={`Restore ${entry.name}`}
                  disabled={restore.isPending}
                  onClick={() =>
                    restore.mutate(entry.name, {
                      onSuccess: (data) => onReport('success', data.message || FILE_MSG.trashRestored),
                      onError: (error) => onReport('error', errorMessage(error, FILE_MSG.restoreFailed)),
                    })
                  }
                >
                  Restore
                </RowButton>
                <RowButton kind="danger" label={`Delete ${entry.name} permanently`} onClick={() => purging.open(entry)}>
                  Delete permanently
                </RowButton>
              </div>
            </li>
          ))}
        </ul>
      )}
      {purging.subject ? <PurgeDialog container={container} folder={folder} entry={purging.subject} onDone={purging.onDone} /> : null}
    </section>
  );
}

function PurgeDialog({
  container,
  folder,
  entry,
  onDone,
}: {
  container: string;
  folder: string;
  entry: TrashedFile;
  onDone: (message: string | null) => void;
}) {
  const purge = usePurgeTrashed(container, folder);
  const [confirmation, setConfirmation] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const error = problem ?? (purge.isError ? errorMessage(purge.error, FILE_MSG.purgeFailed) : null);
  return (
    <FormDialog
      title="Delete permanently"
      danger
      submitLabel="Delete permanently"
      busyLabel="Deleting…"
      busy={purge.isPending}
      error={error}
      onClose={() => onDone(null)}
      onSubmit={(event) => {
        event.preventDefault();
        const issue = confirmsDelete(confirmation) ? null : FILE_MSG.purgeConfirm;
        setProblem(issue);
        if (issue === null)
          purge.mutate({ blob: entry.name, confirmation }, { onSuccess: (data) => onDone(data.message || FILE_MSG.purged) });
      }}
      intro={
        <p>
          <strong>{entry.name}</strong> and all its versions will be deleted for good. This cannot be undone.
        </p>
      }
    >
      <DeleteConfirmField id="purge-confirm" value={confirmation} onValue={setConfirmation} data-autofocus />
    </FormDialog>
  );
}
