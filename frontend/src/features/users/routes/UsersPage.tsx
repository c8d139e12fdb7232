/** /users: every user with assignment counts and a second-factor badge; Edit, Manage Assignments and Delete with confirmation. */
import { useState } from 'react';
import { Link } from 'react-router-dom';
import { QueryBoundary } from '../../../components/QueryBoundary';
import { RefreshControl } from '../../../components/RefreshControl';
import { RowButton } from '../../../components/RowButton';
import { PageHeader } from '../../../components/States';
import { ActionsCell, Table } from '../../../components/Table';
import type { UserSummary } from '../../../lib/api/types';
import { useUsers } from '../api/get-users';
import { DeleteUserDialog } from '../components/DeleteUserDialog';
import { SecondFactorBadge } from '../components/SecondFactorBadge';
import { UserCells } from '../components/UserCells';

export const MSG = {
  loading: 'Loading users…',
  loadFailed: 'Failed to load users',
  empty: 'No users found.',
} as const;

export default function UsersPage() {
  const query = useUsers();
  const [toDelete, setToDelete] = useState<UserSummary | null>(null);
  return (
    <>
      <PageHeader title="Users">
        <RefreshControl query={query} />
        <Link className="btn btn-primary" to="/users/create">
          Create User
        </Link>
      </PageHeader>
      <QueryBoundary query={query} messages={MSG} isEmpty={(data) => data.users.length === 0}>
        {(data) => (
          <Table columns={['Name', 'Username', 'Role', 'Containers', 'Folders', 'Second factor']} actions>
            {data.users.map((u) => (
              <tr key={u.id}>
                <UserCells user={u} />
                <td>{u.folderCount}</td>
                <td>
                  <SecondFactorBadge on={u.secondFactor} />
                </td>
                <ActionsCell>
                  <Link className="btn btn-small" to={`/users/edit/${u.id}`} aria-label={`Edit ${u.name}`}>
                    Edit
                  </Link>
                  <Link className="btn btn-small" to={`/users/assign/${u.id}`} aria-label={`Manage Assignments for ${u.name}`}>
                    Manage Assignments
                  </Link>
                  <RowButton kind="danger" label={`Delete ${u.name}`} onClick={() => setToDelete(u)}>
                    Delete
                  </RowButton>
                </ActionsCell>
              </tr>
            ))}
          </Table>
        )}
      </QueryBoundary>
      {toDelete ? <DeleteUserDialog user={toDelete} onDone={() => setToDelete(null)} /> : null}
    </>
  );
}
