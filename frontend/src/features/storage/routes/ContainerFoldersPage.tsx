/** /admin/containers/{containerName}: the container's folders, searched and paged on the server (20 a page). */
import { Link, useParams } from 'react-router-dom';
import { RefreshControl } from '../../../components/RefreshControl';
import { PageHeader } from '../../../components/States';
import { PagedTileList } from '../../../components/PagedTileList';
import { useFolderPage } from '../../../lib/storageLists';
import { usePagedSearch } from '../../../lib/usePagedSearch';
import { useCreateFolder } from '../api/create-folder';
import { CreateNameForm } from '../components/CreateNameForm';

export const MSG = {
  loading: 'Loading folders…',
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
  const search = usePagedSearch();
  const query = useFolderPage(container, search.q, search.page);
  const create = useCreateFolder(container);
  const href = (folder: string) => `/admin/containers/${encodeURIComponent(container)}/folders/${encodeURIComponent(folder)}`;

  return (
    <>
      <p className="back-link">
        <Link to="/admin/containers">← Back to Storage Management</Link>
      </p>
      <PageHeader title={container}>
        <RefreshControl query={query} />
      </PageHeader>
      {/* A container that failed to load gets no create form. */}
      {query.isError ? null : <CreateNameForm noun="folder" create={create} maxLength={100} messages={MSG} />}
      <PagedTileList noun="folder" search={search} query={query} messages={MSG} href={href} />
    </>
  );
}
