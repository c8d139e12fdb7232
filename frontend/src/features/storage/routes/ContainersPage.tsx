/** /admin/containers: every container, searched and paged on the server (12 a page); create one. */
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router-dom';
import { Banner } from '../../../components/Banner';
import { useNotify } from '../../../components/Notifications';
import { Pager } from '../../../components/Pager';
import { RefreshControl } from '../../../components/RefreshControl';
import { EmptyState, ErrorState, Loading, PageHeader } from '../../../components/States';
import { errorMessage } from '../../../lib/api/client';
import { plural } from '../../../lib/format';
import { pageCount } from '../../../lib/pager';
import { usePagedSearch } from '../../../lib/usePagedSearch';
import { useCreateContainer } from '../api/create-container';
import { CONTAINER_PAGE_SIZE, useContainerPage } from '../api/get-container-page';

export const MSG = {
  loadFailed: 'Failed to load containers',
  empty: 'No containers found.',
  noMatch: 'No containers match your search.',
  createFailed: 'Failed to create container',
  nameRequired: 'Please enter a container name.',
  created: 'Container created successfully',
} as const;

export default function ContainersPage() {
  const { input, setInput, q, page, setPage } = usePagedSearch();
  const query = useContainerPage(q, page);
  const pages = pageCount(query.data?.total ?? 0, CONTAINER_PAGE_SIZE);

  let body;
  if (query.isPending) body = <Loading label="Loading containers…" />;
  else if (query.isError)
    body = <ErrorState message={errorMessage(query.error, MSG.loadFailed)} onRetry={() => void query.refetch()} />;
  else if (query.data.containers.length === 0) body = <EmptyState>{q ? MSG.noMatch : MSG.empty}</EmptyState>;
  else
    body = (
      <>
        <p className="muted small" aria-live="polite">
          {plural(query.data.total, 'container')}
          {q ? ` matching “${q}”` : ''}
        </p>
        <ul className="tile-grid" aria-label="Containers" aria-busy={query.isPlaceholderData}>
          {query.data.containers.map((name) => (
            <li key={name}>
              <Link className="tile" to={`/admin/containers/${encodeURIComponent(name)}`}>
                <span className="tile-icon" aria-hidden="true">
                  ▣
                </span>
                <span className="tile-name">{name}</span>
              </Link>
            </li>
          ))}
        </ul>
        <Pager label="Container pages" page={page} pages={pages} onPage={setPage} disabled={query.isFetching} />
      </>
    );

  return (
    <>
      <PageHeader title="Storage Management">
        <RefreshControl onRefresh={() => void query.refetch()} refreshing={query.isFetching} updatedAt={query.dataUpdatedAt} />
      </PageHeader>
      <CreateContainerForm />
      <section className="panel" aria-labelledby="containers-heading">
        <h2 id="containers-heading">Containers</h2>
        <div className="field search-field">
          <label htmlFor="container-search">Search containers</label>
          <input
            id="container-search"
            type="search"
            value={input}
            onChange={(e) => setInput(e.target.value)}
            placeholder="Container name"
            autoComplete="off"
          />
        </div>
        {body}
      </section>
    </>
  );
}

function CreateContainerForm() {
  const create = useCreateContainer();
  const notify = useNotify();
  const [name, setName] = useState('');
  const [problem, setProblem] = useState<string | null>(null);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const trimmed = name.trim();
    if (!trimmed) {
      setProblem(MSG.nameRequired);
      return;
    }
    setProblem(null);
    create.mutate(trimmed, {
      onSuccess: (data) => {
        notify('success', data.message || MSG.created);
        setName('');
      },
      onError: (error) => setProblem(errorMessage(error, MSG.createFailed)),
    });
  };

  return (
    <section className="panel" aria-labelledby="create-container-heading">
      <h2 id="create-container-heading">Create Container</h2>
      {problem ? (
        <Banner kind="error" onClose={() => setProblem(null)}>
          {problem}
        </Banner>
      ) : null}
      <form className="inline-form" onSubmit={submit} noValidate>
        <div className="field">
          <label htmlFor="new-container">Container name</label>
          <input id="new-container" value={name} onChange={(e) => setName(e.target.value)} autoComplete="off" maxLength={63} />
        </div>
        <button type="submit" className="btn btn-primary" disabled={create.isPending}>
          {create.isPending ? 'Creating…' : 'Create Container'}
        </button>
      </form>
    </section>
  );
}
