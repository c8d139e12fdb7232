/** /assignments: read-only table of every user with role, container names and folder count (built from the users list). */
import { Link } from 'react-router-dom';
import { QueryBoundary } from '../../../components/QueryBoundary';
import { RefreshControl } from '../../../components/RefreshControl';
import { PageHeader, RoleBadge } from '../../../components/States';
import { Table } from '../../../components/Table';
import { naturalSort } from '../../../lib/sort';
import { useUsers } from '../api/get-users';

export const MSG = {
  loading: 'Loading assignments…',
  loadFailed: 'Failed to load assignments data',
  empty: 'No users found.',
} as const;

export default function AssignmentsPage() {
  // The users list: the full with-assignments list runs to megabytes, and this table shows only counts.
  const query = useUsers();
  return (
    <>
      <PageHeader title="Assignments">
        <RefreshControl query={query} />
      </PageHeader>
      <QueryBoundary query={query} messages={MSG} isEmpty={(data) => data.users.length === 0}>
        {(data) => (
          <Table columns={['User', 'Role', 'Containers', 'Folders']}>
            {data.users.map((u) => {
              const containers = naturalSort(u.containerAssignments.map((c) => c.containerName));
              return (
                <tr key={u.id}>
                  <td>
                    <Link to={`/users/assign/${u.id}`}>{u.name}</Link>
                    <div className="muted small">{u.username}</div>
                  </td>
                  <td>
                    <RoleBadge role={u.role} />
                  </td>
                  <td>{containers.length ? containers.join(', ') : <span className="muted">None</span>}</td>
                  <td>{u.folderCount}</td>
                </tr>
              );
            })}
          </Table>
        )}
      </QueryBoundary>
    </>
  );
}
