/** Admin Dashboard: counts by role, the 5 most recent users, Refresh and last-updated time. */
import { Link } from 'react-router-dom';
import { RefreshControl } from '../../../components/RefreshControl';
import { EmptyState, ErrorState, Loading, PageHeader, RoleBadge } from '../../../components/States';
import { errorMessage } from '../../../lib/api/client';
import { useDashboard } from '../../users/api/get-dashboard';
import { useConfirmedEmpty } from '../useConfirmedEmpty';

export const RECENT_USERS = 5;
export const MSG = {
  loadFailed: 'Failed to load dashboard data',
  empty: 'There are no users yet. Create one from the Users menu.',
} as const;

export function AdminDashboard() {
  const query = useDashboard();
  const users = query.data?.users ?? [];
  const { confirmedEmpty, checking } = useConfirmedEmpty({
    dataUpdatedAt: query.dataUpdatedAt,
    isEmpty: query.isSuccess && users.length === 0,
    refetch: query.refetch,
  });
  const stats = query.data?.stats;

  let body;
  if (query.isPending) body = <Loading label="Loading dashboard…" />;
  else if (query.isError) body = <ErrorState message={errorMessage(query.error, MSG.loadFailed)} onRetry={() => void query.refetch()} />;
  else if (checking) body = <Loading label="Checking for users…" />;
  else
    body = (
      <>
        <section className="cards" aria-label="User counts">
          <Stat label="Total Users" value={stats?.totalUsers ?? 0} />
          <Stat label="Doctors" value={stats?.doctors ?? 0} />
          <Stat label="Nurses" value={stats?.nurses ?? 0} />
          <Stat label="Assistants" value={stats?.assistants ?? 0} />
        </section>
        <section className="panel" aria-labelledby="recent-users">
          <h2 id="recent-users">Recent Users</h2>
          {confirmedEmpty ? (
            <EmptyState>
              <p>{MSG.empty}</p>
              <Link to="/users">Go to Users</Link>
            </EmptyState>
          ) : (
            <table className="table">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Username</th>
                  <th scope="col">Role</th>
                  <th scope="col">Containers</th>
                </tr>
              </thead>
              <tbody>
                {users.slice(0, RECENT_USERS).map((u) => (
                  <tr key={u.id}>
                    <td>{u.name}</td>
                    <td>{u.username}</td>
                    <td>
                      <RoleBadge role={u.role} />
                    </td>
                    <td>{u.containerAssignments.length}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </section>
      </>
    );

  return (
    <>
      <PageHeader title="Admin Dashboard">
        <RefreshControl
          onRefresh={() => void query.refetch()}
          refreshing={query.isFetching}
          updatedAt={query.dataUpdatedAt}
        />
      </PageHeader>
      {body}
    </>
  );
}

function Stat({ label, value }: { label: string; value: number | string }) {
  return (
    <div className="card stat">
      <span className="stat-label">{label}</span>
      <span className="stat-value">{value}</span>
    </div>
  );
}

export { Stat };
