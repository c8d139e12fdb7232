/** The Patient Files list: name, badges, modified date, size, content type and version count; click to open. */
import { RowButton } from '../../../components/RowButton';
import { EmptyState } from '../../../components/States';
import type { StoredFile } from '../../../lib/api/types';
import { fileTypeBadge } from '../../../lib/files';
import { formatDateTime, formatFileSize } from '../../../lib/format';
import { FILE_MSG } from '../messages';

interface FileListProps {
  files: StoredFile[];
  ios: boolean;
  onOpen: (name: string) => void;
  /** Admins only: without it no Delete buttons are shown. */
  onDelete?: (file: StoredFile) => void;
  /** Opens the file's Versions panel. */
  onVersions?: (file: StoredFile) => void;
}

/** '1 version', '3 versions'. */
export const versionsLabel = (count: number): string => `${count} ${count === 1 ? 'version' : 'versions'}`;

export function FileList({ files, ios, onOpen, onDelete, onVersions }: FileListProps) {
  if (files.length === 0) return <EmptyState>{FILE_MSG.empty}</EmptyState>;
  const hint = ios ? 'Tap to Open' : 'Click to open';
  return (
    <ul className="file-list" aria-label="Patient files">
      {files.map((file) => (
        <li key={file.name} className="file-row">
          <div className="file-main">
            <button type="button" className="file-open" onClick={() => onOpen(file.name)} title={hint}>
              <span className="file-name">{file.name}</span>
              <span className="visually-hidden"> ({hint})</span>
            </button>
            <div className="file-badges">
              <span className="badge badge-type">{fileTypeBadge(file)}</span>
              {file.isProfileImage ? <span className="badge badge-profile">Profile Image</span> : null}
              {file.isConvertedFromRtf ? (
                <span className="badge badge-muted">
                  Converted from RTF{file.originalRtfFileName ? `: ${file.originalRtfFileName}` : ''}
                </span>
              ) : null}
            </div>
            <div className="file-meta muted small">
              <span>Modified {formatDateTime(file.lastModified)}</span>
              <span>{formatFileSize(file.contentLength)}</span>
              <span>{file.contentType}</span>
              <span>{versionsLabel(file.versionCount)}</span>
            </div>
          </div>
          <div className="file-actions">
            <span className="muted small" aria-hidden="true">
              {hint}
            </span>
            {onVersions ? (
              <RowButton label={`Versions of ${file.name}`} onClick={() => onVersions(file)}>
                Versions
              </RowButton>
            ) : null}
            {onDelete ? (
              <RowButton kind="danger" label={`Delete ${file.name}`} onClick={() => onDelete(file)}>
                Delete
              </RowButton>
            ) : null}
          </div>
        </li>
      ))}
    </ul>
  );
}
