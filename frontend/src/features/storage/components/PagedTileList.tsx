/** A panel of names searched and paged on the server, shown as linked tiles (containers, folders). */
import type { UseQueryResult } from '@tanstack/react-query';
import { Link } from 'react-router-dom';
import { Pager } from '../../../components/Pager';
import { EmptyState, ErrorState, Loading } from '../../../components/States';
import { errorMessage } from '../../../lib/api/client';
import { plural } from '../../../lib/format';
import { pageCount } from '../../../lib/pager';
import type { usePagedSearch } from '../../../lib/usePagedSearch';

interface PagedTileListProps {
  /** The panel's heading and the list's accessible name come from these. */
  heading: string;
  listLabel: string;
  pagerLabel: string;
  /** 'container' or 'folder': the search label, the count and the tile icon follow it. */
  noun: 'container' | 'folder';
  search: ReturnType<typeof usePagedSearch>;
  query: UseQueryResult<unknown>;
  names: readonly string[] | undefined;
  total: number;
  pageSize: number;
  href: (name: string) => string;
  messages: { loading: string; loadFailed: string; empty: string; noMatch: string };
}

const ICONS = { container: '▣', folder: '▤' } as const;

export function PagedTileList({
  heading,
  listLabel,
  pagerLabel,
  noun,
  search,
  query,
  names,
  total,
  pageSize,
  href,
  messages,
}: PagedTileListProps) {
  const { input, setInput, q, page, setPage } = search;
  const headingId = `${noun}s-heading`;
  const title = noun === 'container' ? 'Container' : 'Folder';

  let body;
  if (query.isPending) body = <Loading label={messages.loading} />;
  else if (query.isError)
    body = <ErrorState message={errorMessage(query.error, messages.loadFailed)} onRetry={() => void query.refetch()} />;
  else if (!names || names.length === 0) body = <EmptyState>{q ? messages.noMatch : messages.empty}</EmptyState>;
  else
    body = (
      <>
        <p className="muted small" aria-live="polite">
          {plural(total, noun)}
          {q ? ` matching “${q}”` : ''}
        </p>
        <ul
          className={noun === 'folder' ? 'tile-grid tile-grid-dense' : 'tile-grid'}
          aria-label={listLabel}
          aria-busy={query.isPlaceholderData}
        >
          {names.map((name) => (
            <li key={name}>
              <Link className="tile" to={href(name)}>
                <span className="tile-icon" aria-hidden="true">
                  {ICONS[noun]}
                </span>
                <span className="tile-name">{name}</span>
              </Link>
            </li>
          ))}
        </ul>
        <Pager label={pagerLabel} page={page} pages={pageCount(total, pageSize)} onPage={setPage} disabled={query.isFetching} />
      </>
    );

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
      {body}
    </section>
  );
}
