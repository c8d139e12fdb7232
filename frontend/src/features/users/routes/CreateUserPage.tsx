/** /users/create: a new doctor, nurse or assistant; every field required. */
import { PageHeader } from '../../../components/States';
import type { StaffRole } from '../../../lib/api/types';
import { useCreateUser } from '../api/create-user';
import { UserForm } from '../components/UserForm';
import { USER_FORM_MSG } from '../messages';
import { useSaveUser } from '../useSaveUser';

export default function CreateUserPage() {
  const save = useSaveUser(useCreateUser(), { saved: USER_FORM_MSG.created, failed: USER_FORM_MSG.createFailed }, (v) =>
    v.password ? { name: v.name.trim(), username: v.username.trim(), password: v.password, role: v.role as StaffRole } : null,
  );
  return (
    <>
      <PageHeader title="Create User" />
      <UserForm mode="create" {...save} />
    </>
  );
}
