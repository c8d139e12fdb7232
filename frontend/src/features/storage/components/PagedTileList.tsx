/** A panel of names searched and paged on the server, shown as linked tiles (containers, folders). */
import type { UseQueryResult } from '@tanstack/react-query';
import { Pager } from '../../../components/Pager';
import { QueryBoundary } from '../../../components/QueryBoundary';
import { TileGrid } from '../../../components/TileGrid';
import { plural } from '../../../lib/format';
import { pageCount } from '../../../lib/pager';
import type { usePagedSearch } from '../../../lib/usePagedSearch';

interface PagedTileListProps<T extends { total: number }> {
  /** The panel's heading and the list's accessible name come from these. */
  heading: string;
  listLabel: string;
  pagerLabel: string;
  /** 'container' or 'folder': the search label, the count and the tile icon follow it. */
  noun: 'container' | 'folder';
  search: ReturnType<typeof usePagedSearch>;
  query: UseQueryResult<T>;
  /** The names on the loaded page. */
  names: (data: T) => readonly string[];
  pageSize: number;
  href: (name: string) => string;
  messages: { loading: string; loadFailed: string; empty: string; noMatch: string };
}

export function PagedTileList<T extends { total: number }>({
  heading,
  listLabel,
  pagerLabel,
  noun,
  search,
  query,
  names,
  pageSize,
  href,
  messages,
}: PagedTileListProps<T>) {
  const { input, setInput, q, page, setPage } = search;
  const headingId = `${noun}s-heading`;
  const title = noun === 'container' ? 'Container' : 'Folder';

  return (
    <section className="panel" aria-labelledby={headingId}>
      <h2 id={headingId}>{heading}</h2>
      <div className="field search-field">
        <label htmlFor={`${noun}-search`}>Search {noun}s</label>
        <input
          id={`${noun}-search`}
          type="search"
          value={input}
          onChange={(e) => setInput(e.target.value)}
          placeholder={`${title} name`}
          autoComplete="off"
        />
      </div>
      <QueryBoundary
        query={query}
        loading={messages.loading}
        failed={messages.loadFailed}
        isEmpty={(data) => names(data).length === 0}
        empty={q ? messages.noMatch : messages.empty}
      >
        {(data) => (
          <>
            <p className="muted small" aria-live="polite">
              {plural(data.total, noun)}
              {q ? ` matching “${q}”` : ''}
            </p>
            <TileGrid kind={noun} label={listLabel} names={names(data)} href={href} busy={query.isPlaceholderData} />
            <Pager label={pagerLabel} page={page} pages={pageCount(data.total, pageSize)} onPage={setPage} disabled={query.isFetching} />
          </>
        )}
      </QueryBoundary>
    </section>
  );
}
