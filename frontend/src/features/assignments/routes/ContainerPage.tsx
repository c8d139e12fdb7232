/** /containers/{containerName}: the caller's folders in one container (admins see all of them). */
import type { ReactNode } from 'react';
import { Link, useParams } from 'react-router-dom';
import { QueryBoundary } from '../../../components/QueryBoundary';
import { EmptyState, ErrorState, PageHeader } from '../../../components/States';
import { TileGrid } from '../../../components/TileGrid';
import { ApiError } from '../../../lib/api/client';
import { useSession } from '../../../lib/sessionContext';
import { naturalSort } from '../../../lib/sort';
import { useFolders } from '../../../lib/storageLists';
import { useMyAssignments } from '../api/get-my-assignments';

export const MSG = {
  loading: 'Loading container…',
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
  return (
    <Frame container={container}>
      <QueryBoundary query={query} messages={MSG} serverMessage={false}>
        {(data) => {
          const assignment = data.assignments.find((a) => a.containerName === container);
          if (!assignment) return <NotThere message={MSG.notAssigned} />;
          return <FolderGrid container={container} folders={assignment.folders.map((f) => f.folderName)} />;
        }}
      </QueryBoundary>
    </Frame>
  );
}

/** Admins: every folder of the container, from the folders endpoint (404 for an unknown container). */
function AdminContainer({ container }: { container: string }) {
  const query = useFolders(container);
  const missing = query.error instanceof ApiError && query.error.status === 404;
  return (
    <Frame container={container}>
      {missing ? (
        <NotThere message={MSG.notFound} />
      ) : (
        <QueryBoundary query={query} messages={MSG} serverMessage={false}>
          {(data) => <FolderGrid container={container} folders={data.folders} />}
        </QueryBoundary>
      )}
    </Frame>
  );
}

function Frame({ container, children }: { container: string; children: ReactNode }) {
  return (
    <>
      <p className="back-link">
        <Link to="/my-assignments">← Back to My Assignments</Link>
      </p>
      <PageHeader title={container} />
      {children}
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

function FolderGrid({ container, folders }: { container: string; folders: string[] }) {
  return (
    <section className="panel" aria-labelledby="patient-folders">
      <h2 id="patient-folders">Patient Folders</h2>
      {folders.length === 0 ? (
        <EmptyState>{MSG.empty}</EmptyState>
      ) : (
        <TileGrid
          kind="folder"
          label="Patient folders"
          names={naturalSort(folders)}
          href={(name) => `/containers/${encodeURIComponent(container)}/folders/${encodeURIComponent(name)}`}
        />
      )}
    </section>
  );
}
