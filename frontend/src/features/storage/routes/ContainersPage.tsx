/** /admin/containers: every container, searched and paged on the server (12 a page); create one. */
import { PagedTileList } from '../../../components/PagedTileList';
import { RefreshControl } from '../../../components/RefreshControl';
import { PageHeader } from '../../../components/States';
import { usePagedSearch } from '../../../lib/usePagedSearch';
import { useCreateContainer } from '../api/create-container';
import { useContainerPage } from '../api/get-container-page';
import { CreateNameForm } from '../components/CreateNameForm';

export const MSG = {
  loading: 'Loading containers…',
  loadFailed: 'Failed to load containers',
  empty: 'No containers found.',
  noMatch: 'No containers match your search.',
  createFailed: 'Failed to create container',
  nameRequired: 'Please enter a container name.',
  created: 'Container created successfully',
} as const;

export default function ContainersPage() {
  const search = usePagedSearch();
  const query = useContainerPage(search.q, search.page);
  const create = useCreateContainer();
  const href = (container: string) => `/admin/containers/${encodeURIComponent(container)}`;

  return (
    <>
      <PageHeader title="Storage Management">
        <RefreshControl query={query} />
      </PageHeader>
      <CreateNameForm noun="container" create={create} maxLength={63} messages={MSG} />
      <PagedTileList noun="container" search={search} query={query} messages={MSG} href={href} />
    </>
  );
}
