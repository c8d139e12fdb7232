/** The confirmation before unassigning a container (with its folder assignments) or one folder from a user. */
import { ConfirmMutation } from '../../../components/ConfirmMutation';
import { useNotify } from '../../../components/Notifications';
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
    <ConfirmMutation
      texts={{ title: `Unassign ${target.type}`, confirm: 'Unassign', busy: 'Unassigning…', failed: ASSIGN_MSG.unassignFailed }}
      mutation={unassign}
      variables={{ id: target.assignment.id, type: target.type }}
      onCancel={onDone}
      onSuccess={() => {
        notify('success', isContainer ? ASSIGN_MSG.containerUnassigned : ASSIGN_MSG.folderUnassigned);
        onDone();
      }}
    >
      <p>
        Unassign {target.type} <strong>{name}</strong> from {user.name}?
      </p>
      {target.type === 'container' && target.folderCount > 0 ? (
        <p className="warning-text">Its {plural(target.folderCount, 'folder assignment')} will also be removed.</p>
      ) : null}
      {target.type === 'folder' ? <p className="muted">Container: {target.assignment.containerName}</p> : null}
    </ConfirmMutation>
  );
}
