/** /assignments: read-only table of every user with role, container names and folder count. */
import { Link } from 'react-router-dom';
import { RefreshControl } from '../../../components/RefreshControl';
import { EmptyState, ErrorState, Loading, PageHeader, RoleBadge } from '../../../components/States';
import { errorMessage } from '../../../lib/api/client';
import { naturalSort } from '../../../lib/sort';
import { useUsers } from '../../users/api/get-users';

export const MSG = {
  loadFailed: 'Failed to load assignments data',
  empty: 'No users found.',
} as const;

export default function AssignmentsPage() {
  // The users list: the full with-assignments list runs to megabytes, and this table shows only counts.
  const query = useUsers();
  let body;
  if (query.isPending) body = <Loading label="Loading assignments…" />;
  else if (query.isError) body = <ErrorState message={errorMessage(query.error, MSG.loadFailed)} onRetry={() => void query.refetch()} />;
  else if (query.data.users.length === 0) body = <EmptyState>{MSG.empty}</EmptyState>;
  else
    body = (
      <div className="table-wrap">
        <table className="table">
          <thead>
            <tr>
              <th scope="col">User</th>
              <th scope="col">Role</th>
              <th scope="col">Containers</th>
              <th scope="col">Folders</th>
            </tr>
          </thead>
          <tbody>
            {query.data.users.map((u) => {
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
          </tbody>
        </table>
      </div>
    );
  return (
    <>
      <PageHeader title="Assignments">
        <RefreshControl onRefresh={() => void query.refetch()} refreshing={query.isFetching} updatedAt={query.dataUpdatedAt} />
      </PageHeader>
      {body}
    </>
  );
}
