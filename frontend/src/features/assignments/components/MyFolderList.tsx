/**
 * My folders across every assigned container, searched and paged on the server (20 a page):
 * a search box, the count, the page grouped by container (each linking to its container page)
 * and the windowed pager. My Assignments shows each folder with its file counts; the staff
 * dashboard's patient search shows each patient (FinderResult: the name first, then the date of
 * birth, the record number and the folder). Enter in the box opens the only match (issue 50).
 */
import type { UseQueryResult } from '@tanstack/react-query';
import { Fragment, useEffect, useRef, type KeyboardEvent, type ReactNode } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import { Field } from '../../../components/Field';
import { Pager } from '../../../components/Pager';
import { QueryBoundary } from '../../../components/QueryBoundary';
import type { FolderStats, MyFoldersResponse } from '../../../lib/api/types';
import { formatDateOnly, plural } from '../../../lib/format';
import { FOLDER_PAGE_SIZE, pageCount } from '../../../lib/pager';
import type { usePagedSearch } from '../../../lib/usePagedSearch';

/** Where a folder's page is, for staff. */
export const folderHref = (container: string, folder: string) =>
  `/containers/${encodeURIComponent(container)}/folders/${encodeURIComponent(folder)}`;

/** Consecutive folders of one container (the server orders them by container, then folder). */
function byContainer(folders: readonly FolderStats[]): { container: string; folders: FolderStats[] }[] {
  const groups: { container: string; folders: FolderStats[] }[] = [];
  for (const folder of folders) {
    const last = groups.at(-1);
    if (last && last.container === folder.containerName) last.folders.push(folder);
    else groups.push({ container: folder.containerName, folders: [folder] });
  }
  return groups;
}

interface MyFolderListProps {
  /** Prefix of the ids of the search box and the list. */
  id: string;
  /** The search box's label. */
  label: string;
  search: ReturnType<typeof usePagedSearch>;
  query: UseQueryResult<MyFoldersResponse>;
  messages: { loading: string; loadFailed: string; empty: string; noMatch: string };
  /** true: only the search box (nothing asked yet). */
  idle?: boolean;
  /** One folder's list item. */
  children: (folder: FolderStats) => ReactNode;
}

/** A found folder as the patient finder shows it: the patient's name first (the link to the
 * folder), then the date of birth, the record number and the folder's code. */
export function FinderResult({ folder }: { folder: FolderStats }) {
  const patient = folder.patient;
  const details = [
    patient?.dateOfBirth ? `Born ${formatDateOnly(patient.dateOfBirth)}` : null,
    patient?.recordNumber ? `Record ${patient.recordNumber}` : null,
  ].filter(Boolean);
  return (
    <span className="finder-result">
      <Link className="finder-name" to={folderHref(folder.containerName, folder.folderName)}>
        {patient?.name || folder.folderName}
      </Link>
      {details.length ? <span>{details.join(' · ')}</span> : null}
      {patient?.name ? <span className="muted">Folder {folder.folderName}</span> : null}
    </span>
  );
}

/**
 * Enter in the search box opens the only folder found. Pressed before the typing has settled
 * (the list still shows the words before), it waits for the answer to these words.
 */
function useEnterOpensOnly(search: ReturnType<typeof usePagedSearch>, query: UseQueryResult<MyFoldersResponse>) {
  const navigate = useNavigate();
  // The words Enter was pressed for, until their answer came (no render needs it).
  const waiting = useRef<string | null>(null);
  const answered = query.isSuccess && !query.isPlaceholderData && !query.isFetching;
  const only = answered && query.data.folders.length === 1 && query.data.total === 1 ? query.data.folders[0] : undefined;

  useEffect(() => {
    if (waiting.current === null || waiting.current !== search.q || !answered) return;
    waiting.current = null;
    if (only) navigate(folderHref(only.containerName, only.folderName));
  }, [search.q, answered, only, navigate]);

  return (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key !== 'Enter') return;
    const words = search.input.trim();
    if (!words) return;
    event.preventDefault();
    if (words === search.q && answered) {
      if (only) navigate(folderHref(only.containerName, only.folderName));
    } else waiting.current = words;
  };
}

export function MyFolderList({ id, label, search, query, messages, idle = false, children }: MyFolderListProps) {
  const { input, setInput, q, page, setPage } = search;
  const onKeyDown = useEnterOpensOnly(search, query);
  return (
    <>
      <Field
        id={`${id}-search`}
        className="search-field"
        label={label}
        type="search"
        value={input}
        onValue={setInput}
        placeholder="Folder, patient name, record number or date of birth"
        autoComplete="off"
        enterKeyHint="go"
        onKeyDown={onKeyDown}
      />
      {idle ? null : (
        <QueryBoundary
          query={query}
          messages={{ ...messages, empty: q ? messages.noMatch : messages.empty }}
          isEmpty={(data) => data.folders.length === 0}
        >
          {(data) => (
            <>
              <p className="muted small" aria-live="polite">
                {plural(data.total, 'folder')}
                {q ? ` matching “${q}”` : ''}
              </p>
              <ul className="assignment-tree" id={`${id}-list`} aria-label={`${label}: results`} aria-busy={query.isPlaceholderData}>
                {byContainer(data.folders).map((group) => (
                  <li key={group.container}>
                    <div className="assignment-row">
                      <Link to={`/containers/${encodeURIComponent(group.container)}`}>
                        <strong>{group.container}</strong>
                      </Link>
                    </div>
                    <ul className="folder-stats">
                      {group.folders.map((folder) => (
                        <Fragment key={folder.folderName}>{children(folder)}</Fragment>
                      ))}
                    </ul>
                  </li>
                ))}
              </ul>
              <Pager
                label="Folder pages"
                page={page}
                pages={pageCount(data.total, FOLDER_PAGE_SIZE)}
                onPage={setPage}
                disabled={query.isFetching}
              />
            </>
          )}
        </QueryBoundary>
      )}
    </>
  );
}
