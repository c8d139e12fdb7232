/**
 * /containers/{containerName}: the caller's folders in one container (admins see all of them),
 * searched and paged on the server (20 a page) like the admin storage pages. A container that is
 * not there for the caller (404) says so and offers the way back instead of Try again.
 */
import { Link, useParams } from 'react-router-dom';
import { PagedTileList } from '../../../components/PagedTileList';
import { ErrorState, PageHeader } from '../../../components/States';
import { useSession } from '../../../lib/sessionContext';
import { useFolderPage } from '../../../lib/storageLists';
import { usePagedSearch } from '../../../lib/usePagedSearch';

export const MSG = {
  loading: 'Loading container…',
  notAssigned: 'Container not found or not assigned to you',
  loadFailed: 'Failed to load container data',
  notFound: 'Container not found',
  empty: 'No folders assigned in this container.',
  noMatch: 'No folders match your search.',
} as const;

export default function ContainerPage() {
  const container = useParams().containerName ?? '';
  // A new container starts with a fresh search and page 1.
  return <Container key={container} container={container} />;
}

function Container({ container }: { container: string }) {
  const { user } = useSession();
  const search = usePagedSearch();
  const query = useFolderPage(container, search.q, search.page);
  const href = (name: string) => `/containers/${encodeURIComponent(container)}/folders/${encodeURIComponent(name)}`;
  return (
    <>
      <p className="back-link">
        <Link to="/my-assignments">← Back to My Assignments</Link>
      </p>
      <PageHeader title={container} />
      <PagedTileList
        noun="folder"
        search={search}
        query={query}
        href={href}
        messages={MSG}
        serverMessage={false}
        notFound={<NotThere message={user?.role === 'admin' ? MSG.notFound : MSG.notAssigned} />}
      />
    </>
  );
}

/** A container that is not there for this user: no Try again, the way back instead. */
function NotThere({ message }: { message: string }) {
  return (
    <ErrorState message={message}>
      <Link to="/my-assignments">Back to My Assignments</Link>
    </ErrorState>
  );
}
