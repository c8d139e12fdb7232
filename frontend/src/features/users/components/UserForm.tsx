/** The form of /users/create and /users/edit: name, username, password (optional on edit), role
 * (doctor by default); on edit, for staff, the intake permission (issue 51; admins always have it). */
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router-dom';
import { Banner } from '../../../components/Banner';
import { Field, Options } from '../../../components/Field';
import type { Role, User } from '../../../lib/api/types';
import { STAFF_ROLES } from '../../../lib/roles';
import { PASSWORD_LENGTH } from '../../../lib/server.gen';
import { INTAKE_PERMISSION_HINT, INTAKE_PERMISSION_LABEL } from '../messages';

export interface UserValues {
  name: string;
  username: string;
  password: string;
  role: Role;
  /** The intake permission (sent on edit only). */
  intake: boolean;
}

interface UserFormProps {
  mode: 'create' | 'edit';
  /** The user as the admin's user page has them (with their intake permission). */
  initial?: User & { intake?: boolean };
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
    intake: initial?.intake ?? false,
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
      {mode === 'edit' && !isAdmin ? (
        <div className="field field-checkbox">
          <label htmlFor="user-intake">
            <input
              id="user-intake"
              type="checkbox"
              checked={values.intake}
              onChange={(e) => setValues((v) => ({ ...v, intake: e.target.checked }))}
              aria-describedby="user-intake-hint"
            />{' '}
            {INTAKE_PERMISSION_LABEL}
          </label>
          <span id="user-intake-hint" className="hint">
            {INTAKE_PERMISSION_HINT}
          </span>
        </div>
      ) : null}
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
