/** The Patient Files list: thumbnail (or type), name, badges (a file whose text could not be read
 * says why; a PDF's active content; a file that cannot be displayed, with Download; a file
 * waiting for the virus scan, which only admins see; "New": added or changed since the reader's
 * previous visit; where a document the intake filed came from, fileSource.ts), modified date, size, content type and version count; click to open in the
 * viewer. The list comes sorted (fileSort.ts; FileSortSelect chooses the order).
 *
 * A long list comes in pages, so that a folder of hundreds of files shows its first screen at
 * once: the first FIRST_ROWS rows, then MORE_ROWS more (as a transition React renders in slices)
 * whenever the list's end comes within two screens of being seen (scrolling), at once when the
 * keyboard reaches its last rows; the row of the file the viewer shows is always there (focus
 * goes back to it). Each row says its place among all while some are not there yet
 * (aria-posinset/aria-setsize). Rendering them all while idle instead cost the first load a
 * long task per step on a phone (Lighthouse). Rows are memoised: a listing refetched after a
 * live event renders only the rows whose file changed (the query keeps unchanged files'
 * objects). */
import { memo, startTransition, useCallback, useEffect, useRef, useState, type FocusEvent } from 'react';
import { RowButton } from '../../../components/RowButton';
import { EmptyState } from '../../../components/States';
import type { StoredFile } from '../../../lib/api/types';
import { fileTypeBadge } from '../../../lib/files';
import { formatDateTime, formatFileSize } from '../../../lib/format';
import { isNewSince } from '../api/visit';
import { sourceLabel } from '../fileSource';
import { FILE_SORTS, type FileSort } from '../fileSort';
import { FILE_MSG } from '../messages';
import { FileThumb } from './FileThumb';

/** Rows rendered with the page: more than a first screen holds, on a desktop too. */
export const FIRST_ROWS = 20;
/** Rows added at a time after the first. */
export const MORE_ROWS = 20;
/** Rows from the end at which the keyboard's focus brings more. */
const FOCUS_MARGIN = 3;

/** What a file's row offers, built once by the folder page and handed to every row. Rows are
 * memoised: keep the object the same from render to render (useMemo), or every row renders again. */
export interface FileActions {
  /** Opens the file in the viewer: its name and its thumbnail. */
  open: (name: string) => void;
  /** Saves a file to the device: offered on the row of a file that cannot be displayed. */
  download?: (name: string) => void;
  /** Opens the file's Versions panel. */
  versions?: (file: StoredFile) => void;
  /** Opens the file's Delete dialog. Admins only: without it no Delete buttons are shown. */
  remove?: (file: StoredFile) => void;
}

interface FileListProps {
  files: StoredFile[];
  /** Read on a touch screen (iOS or another): the rows say "Tap to Open" instead of "Click to open". */
  tap?: boolean;
  actions: FileActions;
  /** A file whose row must be in the page (the one the viewer shows: focus goes back to it). */
  reveal?: string | null;
  /** The reader's previous visit (ISO 8601): files modified after it are marked "New". */
  newSince?: string | null;
}

/** The list's order: a labelled select (its choice is remembered by the caller). */
export function FileSortSelect({ sort, onSort }: { sort: FileSort; onSort: (sort: FileSort) => void }) {
  return (
    <div className="field file-sort">
      <label htmlFor="file-sort">Sort by</label>
      <select id="file-sort" value={sort} onChange={(event) => onSort(event.target.value as FileSort)}>
        {FILE_SORTS.map(({ value, label }) => (
          <option key={value} value={value}>
            {label}
          </option>
        ))}
      </select>
    </div>
  );
}

/** '1 version', '3 versions'. */
export const versionsLabel = (count: number): string => `${count} ${count === 1 ? 'version' : 'versions'}`;

/** Calls `onNear` when `node` is within two screens of the viewport, asked again whenever `step`
 * changes (a node still near after the rows it brought calls again). */
function useNear(node: Element | null, onNear: () => void, step: number) {
  useEffect(() => {
    if (!node || typeof IntersectionObserver !== 'function') return;
    const observer = new IntersectionObserver(
      (entries) => {
        if (entries.some((entry) => entry.isIntersecting)) onNear();
      },
      { rootMargin: '200% 0px' },
    );
    observer.observe(node);
    return () => observer.disconnect();
  }, [node, onNear, step]);
}

export function FileList({ files, tap = false, actions, reveal = null, newSince = null }: FileListProps) {
  const [shown, setShown] = useState(FIRST_ROWS);
  const revealAt = reveal === null ? -1 : files.findIndex((file) => file.name === reveal);
  if (revealAt >= shown) setShown(revealAt + 1);
  const count = Math.min(files.length, shown);
  const partial = count < files.length;
  const more = useCallback(() => setShown((current) => current + MORE_ROWS), []);
  const [end, setEnd] = useState<HTMLDivElement | null>(null);

  // The end of the list near the screen: more, as a transition (React renders it in slices that
  // leave the page responsive); the keyboard among the last rows: more at once.
  const moreSoon = useCallback(() => startTransition(more), [more]);
  useNear(partial ? end : null, moreSoon, count);
  const list = useRef<HTMLUListElement>(null);
  const onFocus = (event: FocusEvent<HTMLUListElement>) => {
    if (!partial || !list.current) return;
    const row = (event.target as Element).closest('li');
    if (row && Array.prototype.indexOf.call(list.current.children, row) >= count - FOCUS_MARGIN) more();
  };

  if (files.length === 0) return <EmptyState>{FILE_MSG.empty}</EmptyState>;
  const hint = tap ? 'Tap to Open' : 'Click to open';
  return (
    <>
      <ul ref={list} className="file-list" aria-label="Patient files" onFocus={onFocus}>
        {files.slice(0, count).map((file, index) => (
          <FileRow
            key={file.name}
            file={file}
            hint={hint}
            actions={actions}
            isNew={isNewSince(file.lastModified, newSince)}
            position={partial ? index + 1 : undefined}
            setSize={partial ? files.length : undefined}
          />
        ))}
      </ul>
      {partial ? <div ref={setEnd} className="file-list-end" aria-hidden="true" /> : null}
    </>
  );
}

interface FileRowProps {
  file: StoredFile;
  hint: string;
  actions: FileActions;
  /** Added or changed since the reader's previous visit. */
  isNew?: boolean;
  /** While the list is partial: the row's place among all the folder's files, and their number. */
  position?: number;
  setSize?: number;
}

const FileRow = memo(function FileRow({ file, hint, actions, isNew = false, position, setSize }: FileRowProps) {
  const { open, download, versions, remove } = actions;
  const source = sourceLabel(file.source);
  return (
    <li className="file-row" aria-posinset={position} aria-setsize={setSize}>
      {/* The thumbnail opens the file too, for a pointer; the name is the keyboard's way. */}
      <span className="file-thumb-open" onClick={() => open(file.name)}>
        <FileThumb file={file} />
      </span>
      <div className="file-main">
        <button type="button" className="file-open" onClick={() => open(file.name)} title={hint} data-file-open={file.name}>
          <span className="file-name">{file.name}</span>
          <span className="visually-hidden"> ({hint})</span>
        </button>
        <div className="file-badges">
          {isNew ? (
            <span className="badge badge-new">
              New<span className="visually-hidden"> since your last visit</span>
            </span>
          ) : null}
          <span className="badge badge-type">{fileTypeBadge(file)}</span>
          {source ? <span className="badge badge-source">{source}</span> : null}
          {file.isProfileImage ? <span className="badge badge-profile">Profile Image</span> : null}
          {file.activeContent ? <span className="badge badge-warning">{FILE_MSG.activeContent(file.activeContent)}</span> : null}
          {file.displayable === false ? <span className="badge badge-warning">{FILE_MSG.notDisplayable}</span> : null}
          {file.scanState === 'held' ? <span className="badge badge-muted">{FILE_MSG.heldForScan}</span> : null}
          {file.textState === 'failed' ? <span className="badge badge-warning">{FILE_MSG.notSearchable(file.textProblem)}</span> : null}
          {file.textState === 'pending' ? <span className="badge badge-muted">{FILE_MSG.indexing}</span> : null}
          {file.isConvertedFromRtf ? (
            <span className="badge badge-muted">Converted from RTF{file.originalRtfFileName ? `: ${file.originalRtfFileName}` : ''}</span>
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
        {file.displayable === false && download ? (
          <RowButton label={`Download ${file.name}`} onClick={() => download(file.name)}>
            {FILE_MSG.download}
          </RowButton>
        ) : null}
        {versions ? (
          <RowButton label={`Versions of ${file.name}`} onClick={() => versions(file)}>
            Versions
          </RowButton>
        ) : null}
        {remove ? (
          <RowButton kind="danger" label={`Delete ${file.name}`} onClick={() => remove(file)}>
            Delete
          </RowButton>
        ) : null}
      </div>
    </li>
  );
});
