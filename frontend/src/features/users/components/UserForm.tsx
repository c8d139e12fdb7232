/** The form of /users/create and /users/edit: name, username, password (optional on edit), role (doctor by default). */
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router-dom';
import { Banner } from '../../../components/Banner';
import { Field, Options } from '../../../components/Field';
import type { Role, User } from '../../../lib/api/types';
import { STAFF_ROLES } from '../../../lib/roles';
import { PASSWORD_LENGTH } from '../../../lib/server.gen';

export interface UserValues {
  name: string;
  username: string;
  password: string;
  role: Role;
}

interface UserFormProps {
  mode: 'create' | 'edit';
  initial?: User;
  busy: boolean;
  error: string | null;
  onDismissError: () => void;
  onSubmit: (values: UserValues) => void;
}

export function UserForm({ mode, initial, busy, error, onDismissError, onSubmit }: UserFormProps) {
  const [values, setValues] = useState<UserValues>({
    name: initial?.name ?? '',
    username: initial?.username ?? '',
    password: '',
    role: initial?.role ?? 'doctor',
  });
  const set = (field: keyof UserValues) => (e: { target: { value: string } }) => setValues((v) => ({ ...v, [field]: e.target.value }));
  const isAdmin = initial?.role === 'admin';
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onSubmit(values);
  };
  return (
    <form className="panel form" onSubmit={submit} noValidate>
      <Banner kind="error" onClose={onDismissError}>
        {error}
      </Banner>
      <Field id="user-name" label="Name" value={values.name} onChange={set('name')} required autoComplete="off" />
      <Field id="user-username" label="Username" value={values.username} onChange={set('username')} required autoComplete="off" />
      <Field
        id="user-password"
        label={mode === 'edit' ? 'New password (optional)' : 'Password'}
        hint={mode === 'edit' ? 'Leave blank to keep the current password.' : `At least ${PASSWORD_LENGTH.min} characters.`}
        type="password"
        value={values.password}
        onChange={set('password')}
        required={mode === 'create'}
        autoComplete="new-password"
      />
      <Field id="user-role" label="Role" hint={isAdmin ? 'Admin accounts keep their role.' : undefined}>
        {isAdmin ? (
          // Admins are made only from the command line; the form never offers the role.
          <select id="user-role" value="admin" disabled aria-describedby="user-role-hint">
            <option value="admin">admin</option>
          </select>
        ) : (
          <select id="user-role" value={values.role} onChange={set('role')} required>
            <Options values={STAFF_ROLES} />
          </select>
        )}
      </Field>
      <div className="form-actions">
        <Link className="btn" to="/users">
          Cancel
        </Link>
        <button type="submit" className="btn btn-primary" disabled={busy}>
          {busy ? 'Saving…' : mode === 'create' ? 'Create User' : 'Save Changes'}
        </button>
      </div>
    </form>
  );
}
