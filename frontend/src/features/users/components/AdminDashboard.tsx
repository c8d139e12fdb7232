/** Admin Dashboard: counts by role, the 5 most recent users, Refresh and last-updated time. */
import type { ReactNode } from 'react';
import { Link } from 'react-router-dom';
import { QueryBoundary } from '../../../components/QueryBoundary';
import { RefreshControl } from '../../../components/RefreshControl';
import { Stat } from '../../../components/Stat';
import { EmptyState, Loading, PageHeader } from '../../../components/States';
import { Table } from '../../../components/Table';
import { useConfirmedEmpty } from '../../../lib/useConfirmedEmpty';
import { useDashboard } from '../api/get-dashboard';
import { UserCells } from './UserCells';

export const RECENT_USERS = 5;
export const MSG = {
  loading: 'Loading dashboard…',
  loadFailed: 'Failed to load dashboard data',
  empty: 'There are no users yet. Create one from the Users menu.',
} as const;

/** `children` (other features' cards) come after the users part, once it has loaded: rendered
 * earlier, they would be pushed down the screen as it arrives (a layout shift). */
export function AdminDashboard({ children }: { children?: ReactNode }) {
  const query = useDashboard();
  const { confirmedEmpty, checking } = useConfirmedEmpty({
    dataUpdatedAt: query.dataUpdatedAt,
    isEmpty: query.isSuccess && query.data.users.length === 0,
    refetch: query.refetch,
  });

  return (
    <>
      <PageHeader title="Admin Dashboard">
        <RefreshControl query={query} />
      </PageHeader>
      <QueryBoundary query={query} messages={MSG}>
        {({ users, stats }) =>
          checking ? (
            <Loading label="Checking for users…" />
          ) : (
            <>
              <section className="cards" aria-label="User counts">
                <Stat label="Total Users" value={stats.totalUsers} />
                <Stat label="Doctors" value={stats.doctors} />
                <Stat label="Nurses" value={stats.nurses} />
                <Stat label="Assistants" value={stats.assistants} />
              </section>
              <section className="panel" aria-labelledby="recent-users">
                <h2 id="recent-users">Recent Users</h2>
                {confirmedEmpty ? (
                  <EmptyState>
                    <p>{MSG.empty}</p>
                    <Link to="/users">Go to Users</Link>
                  </EmptyState>
                ) : (
                  <Table columns={['Name', 'Username', 'Role', 'Containers']}>
                    {users.slice(0, RECENT_USERS).map((u) => (
                      <tr key={u.id}>
                        <UserCells user={u} />
                      </tr>
                    ))}
                  </Table>
                )}
              </section>
              {children}
            </>
          )
        }
      </QueryBoundary>
    </>
  );
}
