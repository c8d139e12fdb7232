/** /users: every user with assignment counts; Edit, Manage Assignments and Delete with confirmation. */
import { useState } from 'react';
import { Link } from 'react-router-dom';
import { ConfirmDialog } from '../../../components/Dialog';
import { useNotify } from '../../../components/Notifications';
import { QueryBoundary } from '../../../components/QueryBoundary';
import { RefreshControl } from '../../../components/RefreshControl';
import { PageHeader, RoleBadge } from '../../../components/States';
import { Table } from '../../../components/Table';
import { errorMessage } from '../../../lib/api/client';
import { plural } from '../../../lib/format';
import type { UserSummary } from '../../../lib/api/types';
import { useDeleteUser } from '../api/delete-user';
import { useUsers } from '../api/get-users';

export const MSG = {
  loadFailed: 'Failed to load users',
  deleteFailed: 'Failed to delete user',
  empty: 'No users found.',
  deleted: (name: string) => `User ${name} deleted successfully`,
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
      <QueryBoundary
        query={query}
        loading="Loading users…"
        failed={MSG.loadFailed}
        isEmpty={(data) => data.users.length === 0}
        empty={MSG.empty}
      >
        {(data) => (
          <Table columns={['Name', 'Username', 'Role', 'Containers', 'Folders']} actions>
            {data.users.map((u) => (
              <tr key={u.id}>
                <td>{u.name}</td>
                <td>{u.username}</td>
                <td>
                  <RoleBadge role={u.role} />
                </td>
                <td>{u.containerAssignments.length}</td>
                <td>{u.folderCount}</td>
                <td className="row-actions">
                  <Link className="btn btn-small" to={`/users/edit/${u.id}`} aria-label={`Edit ${u.name}`}>
                    Edit
                  </Link>
                  <Link className="btn btn-small" to={`/users/assign/${u.id}`} aria-label={`Manage Assignments for ${u.name}`}>
                    Manage Assignments
                  </Link>
                  <button
                    type="button"
                    className="btn btn-small btn-danger-outline"
                    onClick={() => setToDelete(u)}
                    aria-label={`Delete ${u.name}`}
                  >
                    Delete
                  </button>
                </td>
              </tr>
            ))}
          </Table>
        )}
      </QueryBoundary>
      {toDelete ? <DeleteUserDialog user={toDelete} onDone={() => setToDelete(null)} /> : null}
    </>
  );
}

function DeleteUserDialog({ user, onDone }: { user: UserSummary; onDone: () => void }) {
  const remove = useDeleteUser();
  const notify = useNotify();
  const containers = user.containerAssignments.length;
  const folders = user.folderCount;
  return (
    <ConfirmDialog
      title="Delete user"
      confirmLabel="Delete User"
      busyLabel="Deleting…"
      danger
      busy={remove.isPending}
      error={remove.isError ? errorMessage(remove.error, MSG.deleteFailed) : null}
      onCancel={onDone}
      onConfirm={() =>
        remove.mutate(user.id, {
          onSuccess: () => {
            notify('success', MSG.deleted(user.name));
            onDone();
          },
        })
      }
    >
      <p>
        Are you sure you want to delete <strong>{user.name}</strong> ({user.username})? This action cannot be undone.
      </p>
      {containers + folders > 0 ? (
        <p className="warning-text">
          {plural(containers, 'container')} and {plural(folders, 'folder')} will be unassigned from this user.
        </p>
      ) : (
        <p className="muted">This user has no container or folder assignments.</p>
      )}
    </ConfirmDialog>
  );
}
