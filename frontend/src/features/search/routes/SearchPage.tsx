/**
 * The results screen (/search?q=...&container=...): what the address says is searched (the top
 * bar's box and this screen's form both change the address), one page of results at a time by
 * the server's cursor. After each search or page the focus goes to the results heading and the
 * count is announced. A hit opens its folder page in the app with the viewer at the match
 * (SearchResults' hitPath); the page of results being read is kept in this history entry's
 * state, so Back from the folder returns to it.
 */
import { useEffect, useRef } from 'react';
import { useLocation, useNavigate, useSearchParams } from 'react-router-dom';
import { CursorPager } from '../../../components/CursorPager';
import { EmptyState, ErrorState, Loading, PageHeader } from '../../../components/States';
import { errorMessage, seg } from '../../../lib/api/client';
import { hasFilters, parseSearch, searchParams, searchUrl, type SearchQuery } from '../../../lib/searchQuery';
import { useSession } from '../../../lib/sessionContext';
import { useSearch } from '../api/search';
import { SearchFilters } from '../components/SearchFilters';
import { SearchResults } from '../components/SearchResults';
import { SEARCH_MSG } from '../messages';

interface SearchPageProps {
  /** iOS Safari: the wording is 'Tap to Open'. */
  ios: boolean;
}

/** This history entry's state: the cursors of the result pages visited, for the search named. */
interface PagingState {
  searchPaging?: { key: string; cursors: (string | null)[] };
}

export default function SearchPage({ ios }: SearchPageProps) {
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const query = parseSearch(params);
  const key = searchParams(query).toString();
  const onSearch = (next: SearchQuery) => navigate(searchUrl(next));
  return (
    <>
      <PageHeader title="Search" />
      <SearchFilters key={key} query={query} onSearch={onSearch} />
      <Results searchKey={key} query={query} ios={ios} />
    </>
  );
}

interface ResultsProps extends SearchPageProps {
  searchKey: string;
  query: SearchQuery;
}

function Results({ searchKey, query, ios }: ResultsProps) {
  const { user } = useSession();
  const location = useLocation();
  const navigate = useNavigate();
  // The cursors of the pages visited belong to the search they were visited in, and to this
  // history entry (Back from a hit's folder page finds the same page of results).
  const paging = (location.state as PagingState | null)?.searchPaging;
  const cursors = paging && paging.key === searchKey && paging.cursors.length > 0 ? paging.cursors : [null];
  const setCursors = (update: (cursors: (string | null)[]) => (string | null)[]) =>
    navigate(
      { pathname: location.pathname, search: location.search },
      { replace: true, state: { ...((location.state as object | null) ?? {}), searchPaging: { key: searchKey, cursors: update(cursors) } } },
    );
  const cursor = cursors[cursors.length - 1] ?? null;
  const search = useSearch(query, cursor);
  const heading = useRef<HTMLHeadingElement>(null);

  // A new search, or another page of it: the reader starts again at the results.
  const page = cursors.length;
  useEffect(() => {
    if (query.q) heading.current?.focus();
  }, [searchKey, page, query.q]);

  const folderPath = (container: string, folder: string) =>
    `${user?.role === 'admin' ? '/admin' : ''}/containers/${seg(container)}/folders/${seg(folder)}`;

  const data = search.data;
  const count = data && !search.isError ? SEARCH_MSG.count(data.total, data.totalCapped === true, query.q) : '';

  let body;
  if (!query.q) body = <EmptyState>{SEARCH_MSG.prompt}</EmptyState>;
  else if (search.isError) {
    body = <ErrorState message={errorMessage(search.error, SEARCH_MSG.failed)} onRetry={() => void search.refetch()} />;
  } else if (!data) body = <Loading label={SEARCH_MSG.searching} />;
  else if (data.results.length === 0) {
    body = (
      <EmptyState>
        <p>{SEARCH_MSG.noResults(query.q)}</p>
        <p className="muted small">{hasFilters(query) ? SEARCH_MSG.noResultsFiltered : SEARCH_MSG.syntax}</p>
      </EmptyState>
    );
  } else {
    body = (
      <>
        <SearchResults results={data.results} ios={ios} busy={search.isFetching} folderPath={folderPath} q={query.q} />
        <CursorPager
          label="Search result pages"
          cursors={cursors}
          setCursors={setCursors}
          nextCursor={data.nextCursor ?? null}
          busy={search.isFetching}
        />
      </>
    );
  }

  return (
    <section className="panel" aria-labelledby="results-heading">
      <h2 id="results-heading" ref={heading} tabIndex={-1}>
        Results
      </h2>
      {/* Always in the page, so that each new count is announced. */}
      <p className="search-count" role="status" aria-live="polite">
        {count}
      </p>
      {body}
    </section>
  );
}
