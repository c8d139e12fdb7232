/** /containers/{containerName}: the caller's folders in one container (admins see all of them). */
import type { ReactNode } from 'react';
import { Link, useParams } from 'react-router-dom';
import { useSession } from '../../../lib/sessionContext';
import { EmptyState, Loading, PageHeader } from '../../../components/States';
import { ApiError } from '../../../lib/api/client';
import { naturalSort } from '../../../lib/sort';
import { useFolders } from '../api/get-folders';
import { useMyAssignments } from '../api/get-my-assignments';

export const MSG = {
  notAssigned: 'Container not found or not assigned to you',
  loadFailed: 'Failed to load container data',
  notFound: 'Container not found',
  empty: 'No folders assigned in this container.',
} as const;

export default function ContainerPage() {
  const container = useParams().containerName ?? '';
  const { user } = useSession();
  return user?.role === 'admin' ? <AdminContainer container={container} /> : <StaffContainer container={container} />;
}

/** Staff: the folders come from my-assignments; an unassigned container is simply not there. */
function StaffContainer({ container }: { container: string }) {
  const query = useMyAssignments();
  if (query.isPending) return <Frame container={container} body={<Loading label="Loading container…" />} />;
  if (query.isError) return <Frame container={container} body={<Failure message={MSG.loadFailed} retry={() => void query.refetch()} />} />;
  const assignment = query.data.assignments.find((a) => a.containerName === container);
  if (!assignment) return <Frame container={container} body={<Failure message={MSG.notAssigned} />} />;
  return <Frame container={container} body={<FolderGrid container={container} folders={assignment.folders.map((f) => f.folderName)} />} />;
}

/** Admins: every folder of the container, from the folders endpoint (404 for an unknown container). */
function AdminContainer({ container }: { container: string }) {
  const query = useFolders(container);
  if (query.isPending) return <Frame container={container} body={<Loading label="Loading container…" />} />;
  if (query.isError) {
    const missing = query.error instanceof ApiError && query.error.status === 404;
    return (
      <Frame
        container={container}
        body={<Failure message={missing ? MSG.notFound : MSG.loadFailed} retry={missing ? undefined : () => void query.refetch()} />}
      />
    );
  }
  return <Frame container={container} body={<FolderGrid container={container} folders={query.data.folders} />} />;
}

function Frame({ container, body }: { container: string; body: ReactNode }) {
  return (
    <>
      <p className="back-link">
        <Link to="/my-assignments">← Back to My Assignments</Link>
      </p>
      <PageHeader title={container} />
      {body}
    </>
  );
}

function Failure({ message, retry }: { message: string; retry?: () => void }) {
  return (
    <div className="state state-error" role="alert">
      <p>{message}</p>
      {retry ? (
        <button type="button" className="btn" onClick={retry}>
          Try again
        </button>
      ) : (
        <Link to="/my-assignments">Back to My Assignments</Link>
      )}
    </div>
  );
}

function FolderGrid({ container, folders }: { container: string; folders: string[] }) {
  return (
    <section className="panel" aria-labelledby="patient-folders">
      <h2 id="patient-folders">Patient Folders</h2>
      {folders.length === 0 ? (
        <EmptyState>{MSG.empty}</EmptyState>
      ) : (
        <ul className="tile-grid tile-grid-dense" aria-label="Patient folders">
          {naturalSort(folders).map((name) => (
            <li key={name}>
              <Link className="tile" to={`/containers/${encodeURIComponent(container)}/folders/${encodeURIComponent(name)}`}>
                <span className="tile-icon" aria-hidden="true">
                  ▤
                </span>
                <span className="tile-name">{name}</span>
              </Link>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
