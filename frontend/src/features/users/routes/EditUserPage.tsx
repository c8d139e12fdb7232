/** /users/edit/{userId}: the user's form filled in; the password is sent only when a new one is typed. */
import { QueryBoundary } from '../../../components/QueryBoundary';
import { ErrorState, PageHeader } from '../../../components/States';
import { useIdParam } from '../../../lib/useIdParam';
import { useUser } from '../api/get-user';
import { useUpdateUser } from '../api/update-user';
import { ResetSecondFactor } from '../components/ResetSecondFactor';
import { SsoLink } from '../components/SsoLink';
import { UserForm } from '../components/UserForm';
import { USER_FORM_MSG } from '../messages';
import { useSaveUser } from '../useSaveUser';

export default function EditUserPage() {
  const id = useIdParam('userId');
  const query = useUser(id ?? 0, id !== null);
  const save = useSaveUser(useUpdateUser(id ?? 0), { saved: USER_FORM_MSG.updated, failed: USER_FORM_MSG.updateFailed }, (v) =>
    v.role
      ? {
          name: v.name.trim(),
          username: v.username.trim(),
          role: v.role,
          ...(v.password ? { password: v.password } : {}),
          // Sent when changed (granted or withdrawn, audited); left out it stays as it is. Admins always have it.
          ...(v.role !== 'admin' && v.intake !== (query.data?.user.intake ?? false) ? { intake: v.intake } : {}),
        }
      : null,
  );
  return (
    <>
      <PageHeader title="Edit User" />
      {id === null ? (
        <ErrorState message="User not found." />
      ) : (
        <QueryBoundary query={query} messages={USER_FORM_MSG} retry={false}>
          {(data) => (
            <>
              <UserForm key={data.user.id} mode="edit" initial={data.user} {...save} />
              <ResetSecondFactor user={data.user} />
              <SsoLink user={data.user} />
            </>
          )}
        </QueryBoundary>
      )}
    </>
  );
}
