/**
 * The results screen (/search?q=...&container=...): what the address says is searched (the top
 * bar's box and this screen's form both change the address), one page of results at a time by
 * the server's cursor. After each search or page the focus goes to the results heading and the
 * count is announced. Opening a file is the caller's (app/routes/SearchPage.tsx: the files
 * feature's way), so the search feature needs no other feature.
 */
import { useEffect, useRef, useState } from 'react';
import { useNavigate, useSearchParams } from 'react-router-dom';
import { CursorPager } from '../../../components/CursorPager';
import { EmptyState, ErrorState, Loading, PageHeader } from '../../../components/States';
import { errorMessage, seg } from '../../../lib/api/client';
import type { SearchResult } from '../../../lib/api/types';
import { hasFilters, parseSearch, searchParams, searchUrl, type SearchQuery } from '../../../lib/searchQuery';
import { useSession } from '../../../lib/sessionContext';
import { useSearch } from '../api/search';
import { SearchFilters } from '../components/SearchFilters';
import { SearchResults } from '../components/SearchResults';
import { SEARCH_MSG } from '../messages';

interface SearchPageProps {
  onOpen: (result: SearchResult) => void;
  /** iOS Safari: files open in this tab, and the wording is 'Tap to Open'. */
  ios: boolean;
}

export default function SearchPage({ onOpen, ios }: SearchPageProps) {
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const query = parseSearch(params);
  const key = searchParams(query).toString();
  const onSearch = (next: SearchQuery) => navigate(searchUrl(next));
  return (
    <>
      <PageHeader title="Search" />
      <SearchFilters key={key} query={query} onSearch={onSearch} />
      <Results searchKey={key} query={query} onOpen={onOpen} ios={ios} />
    </>
  );
}

interface ResultsProps extends SearchPageProps {
  searchKey: string;
  query: SearchQuery;
}

function Results({ searchKey, query, onOpen, ios }: ResultsProps) {
  const { user } = useSession();
  // The cursors of the pages visited belong to the search they were visited in.
  const [paging, setPaging] = useState<{ key: string; cursors: (string | null)[] }>({ key: searchKey, cursors: [null] });
  const cursors = paging.key === searchKey ? paging.cursors : [null];
  const setCursors = (update: (cursors: (string | null)[]) => (string | null)[]) =>
    setPaging({ key: searchKey, cursors: update(cursors) });
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
        <SearchResults results={data.results} ios={ios} busy={search.isFetching} onOpen={onOpen} folderPath={folderPath} />
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
