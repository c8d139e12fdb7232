/**
 * My folders across every assigned container, searched and paged on the server (20 a page):
 * a search box, the count, the page grouped by container (each linking to its container page)
 * and the windowed pager. My Assignments shows each folder with its file counts; the staff
 * dashboard's patient search shows each patient (FinderResult: the name first, then the date of
 * birth, the record number and the folder). Enter in the box opens the only match, never one the
 * server found only by a typo (approximate: its note says closest names are shown) (issue 50).
 */
import type { UseQueryResult } from '@tanstack/react-query';
import { Fragment, useEffect, useRef, type KeyboardEvent, type ReactNode } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import { Field } from '../../../components/Field';
import { FoundCount } from '../../../components/FoundCount';
import { Pager } from '../../../components/Pager';
import { FolderIdentity } from '../../../components/PatientIdentity';
import { QueryBoundary } from '../../../components/QueryBoundary';
import type { FolderStats, MyFoldersResponse } from '../../../lib/api/types';
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
  return (
    <span className="finder-result">
      <FolderIdentity
        folder={folder.folderName}
        patient={folder.patient}
        nameClass="finder-name"
        first={(text) => <Link to={folderHref(folder.containerName, folder.folderName)}>{text}</Link>}
      />
    </span>
  );
}

/**
 * Enter in the search box opens the only folder found, and only when the server found it as typed:
 * a match by one typo ("Jon Smith" finding "Joan Smith") may be another patient, so it is shown,
 * never opened. Pressed before the typing has settled (the list still shows the words before), it
 * waits for the answer to these words; typing again cancels that wait.
 */
function useEnterOpensOnly(search: ReturnType<typeof usePagedSearch>, query: UseQueryResult<MyFoldersResponse>) {
  const navigate = useNavigate();
  // The words Enter was pressed for, until their answer came or the person typed again (no render needs it).
  const waiting = useRef<string | null>(null);
  const answered = query.isSuccess && !query.isPlaceholderData && !query.isFetching;
  const only =
    answered && !query.data.approximate && query.data.folders.length === 1 && query.data.total === 1
      ? query.data.folders[0]
      : undefined;

  useEffect(() => {
    if (waiting.current === null || waiting.current !== search.q || !answered) return;
    waiting.current = null;
    if (only) navigate(folderHref(only.containerName, only.folderName));
  }, [search.q, answered, only, navigate]);

  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key !== 'Enter') return;
    const words = search.input.trim();
    if (!words) return;
    event.preventDefault();
    if (words === search.q && answered) {
      if (only) navigate(folderHref(only.containerName, only.folderName));
    } else waiting.current = words;
  };
  const onValue = (value: string) => {
    waiting.current = null;
    search.setInput(value);
  };
  return { onKeyDown, onValue };
}

export function MyFolderList({ id, label, search, query, messages, idle = false, children }: MyFolderListProps) {
  const { input, q, page, setPage } = search;
  const { onKeyDown, onValue } = useEnterOpensOnly(search, query);
  return (
    <>
      <Field
        id={`${id}-search`}
        className="search-field"
        label={label}
        type="search"
        value={input}
        onValue={onValue}
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
              <FoundCount total={data.total} noun="folder" q={q} approximate={data.approximate} />
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
