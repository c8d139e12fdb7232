/** A panel of names searched and paged on the server, shown as linked tiles (containers, folders). */
import type { UseQueryResult } from '@tanstack/react-query';
import { Field } from '../../../components/Field';
import { Pager } from '../../../components/Pager';
import { QueryBoundary } from '../../../components/QueryBoundary';
import { TileGrid } from '../../../components/TileGrid';
import { plural } from '../../../lib/format';
import { pageCount } from '../../../lib/pager';
import type { ContainersResponse, FoldersResponse } from '../../../lib/api/types';
import type { usePagedSearch } from '../../../lib/usePagedSearch';
import { CONTAINER_PAGE_SIZE } from '../api/get-container-page';
import { FOLDER_PAGE_SIZE } from '../api/get-folder-page';

/** The panel's heading, the list's and the pager's accessible names, the page size (spec section 9). */
const KINDS = {
  container: { title: 'Container', heading: 'Containers', list: 'Containers', pager: 'Container pages', pageSize: CONTAINER_PAGE_SIZE },
  folder: { title: 'Folder', heading: 'Patient Folders', list: 'Patient folders', pager: 'Folder pages', pageSize: FOLDER_PAGE_SIZE },
} as const;

const namesOf = (data: ContainersResponse | FoldersResponse) => ('containers' in data ? data.containers : data.folders);

interface PagedTileListProps<T extends ContainersResponse | FoldersResponse> {
  /** 'container' or 'folder': the texts, the search label, the count and the tile icon follow it. */
  noun: keyof typeof KINDS;
  search: ReturnType<typeof usePagedSearch>;
  query: UseQueryResult<T>;
  href: (name: string) => string;
  messages: { loading: string; loadFailed: string; empty: string; noMatch: string };
}

export function PagedTileList<T extends ContainersResponse | FoldersResponse>(props: PagedTileListProps<T>) {
  const { noun, search, query, href, messages } = props;
  const { input, setInput, q, page, setPage } = search;
  const kind = KINDS[noun];
  const headingId = `${noun}s-heading`;

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
        placeholder={`${kind.title} name`}
        autoComplete="off"
      />
      <QueryBoundary
        query={query}
        messages={{ ...messages, empty: q ? messages.noMatch : messages.empty }}
        isEmpty={(data) => namesOf(data).length === 0}
      >
        {(data) => (
          <>
            <p className="muted small" aria-live="polite">
              {plural(data.total, noun)}
              {q ? ` matching “${q}”` : ''}
            </p>
            <TileGrid kind={noun} label={kind.list} names={namesOf(data)} href={href} busy={query.isPlaceholderData} />
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
