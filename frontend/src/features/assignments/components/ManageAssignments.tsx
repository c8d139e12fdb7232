/** Manage Assignments for one user: their details, current assignments with Unassign, and the form that assigns more. */
import { useState } from 'react';
import { RoleBadge } from '../../../components/States';
import type { User } from '../../../lib/api/types';
import { naturalSort } from '../../../lib/sort';
import { useUserAssignments } from '../api/get-user-assignments';
import { AssignForm } from './AssignForm';
import { CurrentAssignments } from './CurrentAssignments';
import { UnassignDialog, type UnassignTarget } from './UnassignDialog';

export function ManageAssignments({ user }: { user: User }) {
  const assignments = useUserAssignments(user.id);
  const [pending, setPending] = useState<UnassignTarget | null>(null);
  const containerNames = naturalSort((assignments.data?.containerAssignments ?? []).map((a) => a.containerName));

  return (
    <>
      <div className="split">
        <div className="split-main">
          <section className="panel" aria-labelledby="user-details">
            <h2 id="user-details">User Details</h2>
            <dl className="details">
              <dt>Name</dt>
              <dd>{user.name}</dd>
              <dt>Username</dt>
              <dd>{user.username}</dd>
              <dt>Role</dt>
              <dd>
                <RoleBadge role={user.role} />
              </dd>
            </dl>
          </section>
          <CurrentAssignments query={assignments} onUnassign={setPending} />
        </div>
        <AssignForm
          user={user}
          assignedContainers={containerNames}
          assignedFolders={assignments.data?.folderAssignments ?? []}
        />
      </div>
      {pending ? <UnassignDialog user={user} target={pending} onDone={() => setPending(null)} /> : null}
    </>
  );
}
