/** /users/assign/{userId}: one user (users feature) and the management of their assignments (assignments feature). */
import { Link } from 'react-router-dom';
import { QueryBoundary } from '../../components/QueryBoundary';
import { ErrorState, PageHeader } from '../../components/States';
import { ManageAssignments } from '../../features/assignments/components/ManageAssignments';
import { useUser } from '../../features/users/api/get-user';
import { ApiError } from '../../lib/api/client';
import { useIdParam } from '../../lib/useIdParam';

export const MSG = {
  userNotFound: 'User not found',
  loading: 'Loading user…',
  loadFailed: 'Failed to load user data',
} as const;

export default function AssignPage() {
  const id = useIdParam('userId');
  const query = useUser(id ?? 0, id !== null);
  const notFound = id === null || (query.error instanceof ApiError && query.error.status === 404);
  return (
    <>
      <PageHeader title="Manage Assignments">
        {query.isSuccess ? (
          <Link className="btn" to="/users">
            Back to Users
          </Link>
        ) : null}
      </PageHeader>
      {notFound ? (
        <ErrorState message={MSG.userNotFound}>
          <Link to="/users">Back to Users</Link>
        </ErrorState>
      ) : (
        <QueryBoundary query={query} messages={MSG}>
          {(data) => <ManageAssignments key={data.user.id} user={data.user} />}
        </QueryBoundary>
      )}
    </>
  );
}
