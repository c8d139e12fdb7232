/** Staff dashboard: welcome, counts, role, and the assigned containers with folder counts. */
import { Link } from 'react-router-dom';
import { QueryBoundary } from '../../../components/QueryBoundary';
import { RefreshControl } from '../../../components/RefreshControl';
import { Stat } from '../../../components/Stat';
import { EmptyState, PageHeader } from '../../../components/States';
import { plural, roleLabel } from '../../../lib/format';
import { naturalSort } from '../../../lib/sort';
import { useMyAssignments } from '../api/get-my-assignments';

export const MSG = {
  loading: 'Loading your assignments…',
  loadFailed: 'Failed to load assignments',
  empty: "You don't have any assigned containers yet.",
} as const;

export function StaffDashboard({ name, role }: { name: string; role: string }) {
  const query = useMyAssignments();
  return (
    <>
      <PageHeader title={`Welcome, ${name}`}>
        <RefreshControl query={query} />
      </PageHeader>
      <QueryBoundary query={query} messages={MSG}>
        {(data) => {
          const assignments = naturalSort(data.assignments, (a) => a.containerName);
          const folderCount = assignments.reduce((sum, a) => sum + a.folders.length, 0);
          return (
            <>
              <section className="cards" aria-label="Summary">
                <Stat label="Containers" value={assignments.length} />
                <Stat label="Patient Folders" value={folderCount} />
                <Stat label="Role" value={roleLabel(role)} />
              </section>
              <section className="panel" aria-labelledby="assigned-containers">
                <h2 id="assigned-containers">Assigned Containers</h2>
                {assignments.length === 0 ? (
                  <EmptyState>{MSG.empty}</EmptyState>
                ) : (
                  <ul className="link-list">
                    {assignments.map((a) => (
                      <li key={a.id}>
                        <Link to={`/containers/${encodeURIComponent(a.containerName)}`}>{a.containerName}</Link>
                        <span className="muted">{plural(a.folders.length, 'folder')}</span>
                      </li>
                    ))}
                  </ul>
                )}
              </section>
            </>
          );
        }}
      </QueryBoundary>
    </>
  );
}
