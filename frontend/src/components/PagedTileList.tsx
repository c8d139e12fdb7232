/** A panel of names searched and paged on the server, shown as linked tiles (containers, folders). */
import type { UseQueryResult } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { isNotFound } from '../lib/api/client';
import type { ContainersResponse, FoldersResponse } from '../lib/api/types';
import { CONTAINER_PAGE_SIZE, FOLDER_PAGE_SIZE, pageCount } from '../lib/pager';
import type { usePagedSearch } from '../lib/usePagedSearch';
import { Field } from './Field';
import { FoundCount } from './FoundCount';
import { Pager } from './Pager';
import { QueryBoundary } from './QueryBoundary';
import { FolderIdentity } from './PatientIdentity';
import { TileGrid } from './TileGrid';

/** The panel's heading, the list's and the pager's accessible names, the page size (spec section 9). */
const KINDS = {
  container: { title: 'Container', heading: 'Containers', list: 'Containers', pager: 'Container pages', pageSize: CONTAINER_PAGE_SIZE },
  folder: { title: 'Folder', heading: 'Patient Folders', list: 'Patient folders', pager: 'Folder pages', pageSize: FOLDER_PAGE_SIZE },
} as const;

const namesOf = (data: ContainersResponse | FoldersResponse) => ('containers' in data ? data.containers : data.folders);
/** A folder tile's text: its patient first (name, date of birth, record number), from the page's
 * patients, its code second; a folder with no patient details, its code. */
const contentOf = (data: ContainersResponse | FoldersResponse) =>
  'patients' in data && data.patients
    ? (name: string) => <FolderIdentity folder={name} patient={data.patients?.[name]} nameClass="tile-name" />
    : undefined;

interface PagedTileListProps<T extends ContainersResponse | FoldersResponse> {
  /** 'container' or 'folder': the texts, the search label, the count and the tile icon follow it. */
  noun: keyof typeof KINDS;
  search: ReturnType<typeof usePagedSearch>;
  query: UseQueryResult<T>;
  href: (name: string) => string;
  messages: { loading: string; loadFailed: string; empty: string; noMatch: string };
  /** Shown instead of the panel when the list is not there (404): what to say and the way back. */
  notFound?: ReactNode;
  /** false: the screen's failure text even when the server sent a message. */
  serverMessage?: boolean;
}

export function PagedTileList<T extends ContainersResponse | FoldersResponse>(props: PagedTileListProps<T>) {
  const { noun, search, query, href, messages, notFound, serverMessage } = props;
  const { input, setInput, q, page, setPage } = search;
  const kind = KINDS[noun];
  const headingId = `${noun}s-heading`;

  if (notFound !== undefined && isNotFound(query.error)) return <>{notFound}</>;
  return (
    <section className="panel" aria-labelledby={headingId}>
      <h2 id={headingId}>{kind.heading}</h2>
      <Field
        id={`${noun}-search`}
        className="search-field"
        label={`Search ${noun}s`}
        type="search"
        value={input}
        onValue={setInput}
        placeholder={noun === 'folder' ? 'Folder, patient name, record number or date of birth' : `${kind.title} name`}
        autoComplete="off"
      />
      <QueryBoundary
        query={query}
        messages={{ ...messages, empty: q ? messages.noMatch : messages.empty }}
        serverMessage={serverMessage}
        isEmpty={(data) => namesOf(data).length === 0}
      >
        {(data) => (
          <>
            <FoundCount total={data.total} noun={noun} q={q} approximate={'approximate' in data && data.approximate} />
            <TileGrid
              kind={noun}
              label={kind.list}
              names={namesOf(data)}
              href={href}
              busy={query.isPlaceholderData}
              content={contentOf(data)}
            />
            <Pager
              label={kind.pager}
              page={page}
              pages={pageCount(data.total, kind.pageSize)}
              onPage={setPage}
              disabled={query.isFetching}
            />
          </>
        )}
      </QueryBoundary>
    </section>
  );
}
