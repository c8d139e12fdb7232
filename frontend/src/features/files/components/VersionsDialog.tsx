/**
 * The Versions panel of one file: every version with who uploaded it and when (a document the
 * intake filed: where it came from, and who filed it), newest first;
 * any version opens (a signed link, like the file); admins, doctors and nurses restore an
 * earlier one after a confirmation (the current content is kept as a version in turn).
 */
import { useState } from 'react';
import { Dialog } from '../../../components/Dialog';
import { ConfirmMutation } from '../../../components/ConfirmMutation';
import { RowButton } from '../../../components/RowButton';
import { QueryBoundary } from '../../../components/QueryBoundary';
import type { FileVersion, StoredFile } from '../../../lib/api/types';
import { formatDateTime, formatFileSize } from '../../../lib/format';
import { useRestoreVersion, useVersions } from '../api/versions';
import { addedBy, sourceLabel } from '../fileSource';
import { FILE_MSG } from '../messages';

interface VersionsDialogProps {
  container: string;
  folder: string;
  file: StoredFile;
  canRestore: boolean;
  onOpen: (blob: string, versionId?: string) => void;
  /** With the success message of a restore, or null when closed. */
  onDone: (message: string | null) => void;
}

const VERSION_MSG = { loading: 'Loading versions…', loadFailed: FILE_MSG.versionsFailed } as const;

export function VersionsDialog({ container, folder, file, canRestore, onOpen, onDone }: VersionsDialogProps) {
  const versions = useVersions(container, folder, file.name);
  const restore = useRestoreVersion(container, folder, file.name);
  const [toRestore, setToRestore] = useState<FileVersion | null>(null);

  if (toRestore) {
    return (
      <ConfirmMutation
        texts={{ title: 'Restore this version?', confirm: 'Restore', busy: 'Restoring…', failed: FILE_MSG.restoreFailed }}
        mutation={restore}
        variables={toRestore.versionId}
        onCancel={() => setToRestore(null)}
        onSuccess={(data) => onDone(data.message || FILE_MSG.versionRestored)}
      >
        <p>
          The version of <strong>{file.name}</strong> from {formatDateTime(toRestore.lastModified)} becomes the current one.
        </p>
        <p>{FILE_MSG.keptAsVersion}</p>
      </ConfirmMutation>
    );
  }

  return (
    <Dialog
      title={`Versions of ${file.name}`}
      onClose={() => onDone(null)}
      actions={
        <button type="button" className="btn" onClick={() => onDone(null)} data-autofocus>
          Close
        </button>
      }
    >
      <QueryBoundary query={versions} messages={VERSION_MSG}>
        {(data) => (
          <ul className="file-list" aria-label={`Versions of ${file.name}`}>
            {data.versions.map((version) => (
              <li key={version.versionId} className="file-row">
                <div className="file-main">
                  <div>
                    <strong>{formatDateTime(version.lastModified)}</strong>{' '}
                    {version.current ? <span className="badge badge-profile">Current</span> : null}
                    {version.activeContent ? <span className="badge badge-warning">{FILE_MSG.activeContent(version.activeContent)}</span> : null}{' '}
                    {version.displayable === false ? <span className="badge badge-warning">{FILE_MSG.notDisplayable}</span> : null}{' '}
                    {version.source ? <span className="badge badge-source">{sourceLabel(version.source)}</span> : null}
                  </div>
                  <div className="file-meta muted small">
                    {addedBy(version) ? <span>{addedBy(version)}</span> : null}
                    <span>{formatFileSize(version.contentLength)}</span>
                  </div>
                </div>
                <div className="file-actions">
                  <RowButton
                    label={`Open the version of ${formatDateTime(version.lastModified)}`}
                    onClick={() => onOpen(file.name, version.current ? undefined : version.versionId)}
                  >
                    Open
                  </RowButton>
                  {canRestore && !version.current ? (
                    <RowButton
                      kind="primary"
                      label={`Restore the version of ${formatDateTime(version.lastModified)}`}
                      onClick={() => setToRestore(version)}
                    >
                      Restore
                    </RowButton>
                  ) : null}
                </div>
              </li>
            ))}
          </ul>
        )}
      </QueryBoundary>
    </Dialog>
  );
}
