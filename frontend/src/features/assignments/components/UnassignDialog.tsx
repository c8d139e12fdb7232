/** The confirmation before unassigning a container (with its folder assignments) or one folder from a user. */
import { ConfirmDialog } from '../../../components/Dialog';
import { useNotify } from '../../../components/Notifications';
import { errorMessage } from '../../../lib/api/client';
import type { ContainerAssignment, FolderAssignment, User } from '../../../lib/api/types';
import { plural } from '../../../lib/format';
import { useUnassign } from '../api/unassign';
import { ASSIGN_MSG } from '../messages';

/** What is about to be unassigned. */
export type UnassignTarget =
  | { type: 'container'; assignment: ContainerAssignment; folderCount: number }
  | { type: 'folder'; assignment: FolderAssignment };

export function UnassignDialog({ user, target, onDone }: { user: User; target: UnassignTarget; onDone: () => void }) {
  const unassign = useUnassign();
  const notify = useNotify();
  const isContainer = target.type === 'container';
  const name = target.type === 'container' ? target.assignment.containerName : target.assignment.folderName;
  return (
    <ConfirmDialog
      title={isContainer ? 'Unassign container' : 'Unassign folder'}
      confirmLabel="Unassign"
      busyLabel="Unassigning…"
      danger
      busy={unassign.isPending}
      error={unassign.isError ? errorMessage(unassign.error, ASSIGN_MSG.unassignFailed) : null}
      onCancel={onDone}
      onConfirm={() =>
        unassign.mutate(
          { id: target.assignment.id, type: target.type },
          {
            onSuccess: () => {
              notify('success', isContainer ? ASSIGN_MSG.containerUnassigned : ASSIGN_MSG.folderUnassigned);
              onDone();
            },
          },
        )
      }
    >
      <p>
        Unassign {target.type} <strong>{name}</strong> from {user.name}?
      </p>
      {target.type === 'container' && target.folderCount > 0 ? (
        <p className="warning-text">Its {plural(target.folderCount, 'folder assignment')} will also be removed.</p>
      ) : null}
      {target.type === 'folder' ? <p className="muted">Container: {target.assignment.containerName}</p> : null}
    </ConfirmDialog>
  );
}
