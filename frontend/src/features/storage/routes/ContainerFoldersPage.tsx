/** /admin/containers/{containerName}: the container's folders, searched and paged on the server (20 a page). */
import { useState, type FormEvent } from 'react';
import { Link, useParams } from 'react-router-dom';
import { Banner } from '../../../components/Banner';
import { useNotify } from '../../../components/Notifications';
import { Pager } from '../../../components/Pager';
import { RefreshControl } from '../../../components/RefreshControl';
import { EmptyState, ErrorState, Loading, PageHeader } from '../../../components/States';
import { errorMessage } from '../../../lib/api/client';
import { plural } from '../../../lib/format';
import { pageCount } from '../../../lib/pager';
import { usePagedSearch } from '../../../lib/usePagedSearch';
import { useCreateFolder } from '../api/create-folder';
import { FOLDER_PAGE_SIZE, useFolderPage } from '../api/get-folder-page';

export const MSG = {
  loadFailed: 'Failed to load folders',
  empty: 'No folders in this container yet.',
  noMatch: 'No folders match your search.',
  createFailed: 'Failed to create folder',
  nameRequired: 'Please enter a folder name.',
  created: 'Folder created successfully',
} as const;

export default function ContainerFoldersPage() {
  const container = useParams().containerName ?? '';
  // A new container starts with a fresh search and page 1.
  return <ContainerFolders key={container} container={container} />;
}

function ContainerFolders({ container }: { container: string }) {
  const { input, setInput, q, page, setPage } = usePagedSearch();
  const query = useFolderPage(container, q, page);
  const pages = pageCount(query.data?.total ?? 0, FOLDER_PAGE_SIZE);
  const base = `/admin/containers/${encodeURIComponent(container)}`;

  let body;
  if (query.isPending) body = <Loading label="Loading folders…" />;
  else if (query.isError)
    body = <ErrorState message={errorMessage(query.error, MSG.loadFailed)} onRetry={() => void query.refetch()} />;
  else if (query.data.folders.length === 0) body = <EmptyState>{q ? MSG.noMatch : MSG.empty}</EmptyState>;
  else
    body = (
      <>
        <p className="muted small" aria-live="polite">
          {plural(query.data.total, 'folder')}
          {q ? ` matching “${q}”` : ''}
        </p>
        <ul className="tile-grid tile-grid-dense" aria-label="Patient folders" aria-busy={query.isPlaceholderData}>
          {query.data.folders.map((name) => (
            <li key={name}>
              <Link className="tile" to={`${base}/folders/${encodeURIComponent(name)}`}>
                <span className="tile-icon" aria-hidden="true">
                  ▤
                </span>
                <span className="tile-name">{name}</span>
              </Link>
            </li>
          ))}
        </ul>
        <Pager label="Folder pages" page={page} pages={pages} onPage={setPage} disabled={query.isFetching} />
      </>
    );

  const notFound = query.isError;
  return (
    <>
      <p className="back-link">
        <Link to="/admin/containers">← Back to Storage Management</Link>
      </p>
      <PageHeader title={container}>
        <RefreshControl onRefresh={() => void query.refetch()} refreshing={query.isFetching} updatedAt={query.dataUpdatedAt} />
      </PageHeader>
      {notFound ? null : <CreateFolderForm container={container} />}
      <section className="panel" aria-labelledby="folders-heading">
        <h2 id="folders-heading">Patient Folders</h2>
        <div className="field search-field">
          <label htmlFor="folder-search">Search folders</label>
          <input
            id="folder-search"
            type="search"
            value={input}
            onChange={(e) => setInput(e.target.value)}
            placeholder="Folder name"
            autoComplete="off"
          />
        </div>
        {body}
      </section>
    </>
  );
}

function CreateFolderForm({ container }: { container: string }) {
  const create = useCreateFolder(container);
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
    <section className="panel" aria-labelledby="create-folder-heading">
      <h2 id="create-folder-heading">Create Folder</h2>
      {problem ? (
        <Banner kind="error" onClose={() => setProblem(null)}>
          {problem}
        </Banner>
      ) : null}
      <form className="inline-form" onSubmit={submit} noValidate>
        <div className="field">
          <label htmlFor="new-folder">Folder name</label>
          <input id="new-folder" value={name} onChange={(e) => setName(e.target.value)} autoComplete="off" maxLength={100} />
        </div>
        <button type="submit" className="btn btn-primary" disabled={create.isPending}>
          {create.isPending ? 'Creating…' : 'Create Folder'}
        </button>
      </form>
    </section>
  );
}
