/** The cells the users tables begin with: name, username, role and the number of assigned containers. */
import { RoleBadge } from '../../../components/States';
import type { UserSummary } from '../../../lib/api/types';

export function UserCells({ user }: { user: Pick<UserSummary, 'name' | 'username' | 'role' | 'containerAssignments'> }) {
  return (
    <>
      <td>{user.name}</td>
      <td>{user.username}</td>
      <td>
        <RoleBadge role={user.role} />
      </td>
      <td>{user.containerAssignments.length}</td>
    </>
  );
}
