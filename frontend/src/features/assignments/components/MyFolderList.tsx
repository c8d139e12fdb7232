/**
 * My folders across every assigned container, searched and paged on the server (20 a page):
 * a search box, the count, the page grouped by container (each linking to its container page)
 * and the windowed pager. My Assignments shows each folder with its file counts; the staff
 * dashboard's patient search shows plain links to the folder pages.
 */
import type { UseQueryResult } from '@tanstack/react-query';
import { Fragment, type ReactNode } from 'react';
import { Link } from 'react-router-dom';
import { Field } from '../../../components/Field';
import { Pager } from '../../../components/Pager';
import { QueryBoundary } from '../../../components/QueryBoundary';
import type { FolderStats, MyFoldersResponse } from '../../../lib/api/types';
import { plural } from '../../../lib/format';
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

export function MyFolderList({ id, label, search, query, messages, idle = false, children }: MyFolderListProps) {
  const { input, setInput, q, page, setPage } = search;
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
