/** The confirmation before deleting a user, naming the assignments that go with them. */
import { ConfirmMutation } from '../../../components/ConfirmMutation';
import { useNotify } from '../../../components/Notifications';
import type { UserSummary } from '../../../lib/api/types';
import { plural } from '../../../lib/format';
import { useDeleteUser } from '../api/delete-user';

export const DELETE_USER = {
  title: 'Delete user',
  confirm: 'Delete User',
  busy: 'Deleting…',
  failed: 'Failed to delete user',
  deleted: (name: string) => `User ${name} deleted successfully`,
} as const;

export function DeleteUserDialog({ user, onDone }: { user: UserSummary; onDone: () => void }) {
  const remove = useDeleteUser();
  const notify = useNotify();
  const containers = user.containerAssignments.length;
  const folders = user.folderCount;
  return (
    <ConfirmMutation
      texts={DELETE_USER}
      mutation={remove}
      variables={user.id}
      onCancel={onDone}
      onSuccess={() => {
        notify('success', DELETE_USER.deleted(user.name));
        onDone();
      }}
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
    </ConfirmMutation>
  );
}
