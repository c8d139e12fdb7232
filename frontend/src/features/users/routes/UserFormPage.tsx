/** /users/create and /users/edit/{userId}: one form; doctor by default; password optional on edit. */
import { useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import { Banner } from '../../../components/Banner';
import { useNotify } from '../../../components/Notifications';
import { QueryBoundary } from '../../../components/QueryBoundary';
import { ErrorState, PageHeader } from '../../../components/States';
import { errorMessage } from '../../../lib/api/client';
import type { Role, StaffRole, User } from '../../../lib/api/types';
import { STAFF_ROLES } from '../../../lib/roles';
import { useIdParam } from '../../../lib/useIdParam';
import { useCreateUser } from '../api/create-user';
import { useUser } from '../api/get-user';
import { useUpdateUser } from '../api/update-user';

export const MSG = {
  required: 'Please fill in all required fields.',
  created: 'User created successfully',
  updated: 'User updated successfully',
  createFailed: 'Failed to create user',
  updateFailed: 'Failed to update user',
  loadFailed: 'Failed to load user data',
} as const;

interface Values {
  name: string;
  username: string;
  password: string;
  role: Role;
}

export function CreateUserPage() {
  const create = useCreateUser();
  const navigate = useNavigate();
  const notify = useNotify();
  const [error, setError] = useState<string | null>(null);
  const submit = (values: Values) => {
    if (!values.name.trim() || !values.username.trim() || !values.password) {
      setError(MSG.required);
      return;
    }
    setError(null);
    create.mutate(
      { name: values.name.trim(), username: values.username.trim(), password: values.password, role: values.role as StaffRole },
      {
        onSuccess: () => {
          notify('success', MSG.created);
          navigate('/users');
        },
        onError: (err) => setError(errorMessage(err, MSG.createFailed)),
      },
    );
  };
  return (
    <>
      <PageHeader title="Create User" />
      <UserForm mode="create" busy={create.isPending} error={error} onDismissError={() => setError(null)} onSubmit={submit} />
    </>
  );
}

export function EditUserPage() {
  const id = useIdParam('userId');
  const query = useUser(id ?? 0, id !== null);
  const update = useUpdateUser(id ?? 0);
  const navigate = useNavigate();
  const notify = useNotify();
  const [error, setError] = useState<string | null>(null);

  const submit = (values: Values) => {
    if (!values.name.trim() || !values.username.trim() || !values.role) {
      setError(MSG.required);
      return;
    }
    setError(null);
    const body = { name: values.name.trim(), username: values.username.trim(), role: values.role, ...(values.password ? { password: values.password } : {}) };
    update.mutate(body, {
      onSuccess: () => {
        notify('success', MSG.updated);
        navigate('/users');
      },
      onError: (err) => setError(errorMessage(err, MSG.updateFailed)),
    });
  };

  return (
    <>
      <PageHeader title="Edit User" />
      {id === null ? (
        <ErrorState message="User not found." />
      ) : (
        <QueryBoundary query={query} loading="Loading user…" failed={MSG.loadFailed} retry={false}>
          {(data) => (
            <UserForm
              key={data.user.id}
              mode="edit"
              initial={data.user}
              busy={update.isPending}
              error={error}
              onDismissError={() => setError(null)}
              onSubmit={submit}
            />
          )}
        </QueryBoundary>
      )}
    </>
  );
}

interface FormProps {
  mode: 'create' | 'edit';
  initial?: User;
  busy: boolean;
  error: string | null;
  onDismissError: () => void;
  onSubmit: (values: Values) => void;
}

function UserForm({ mode, initial, busy, error, onDismissError, onSubmit }: FormProps) {
  const [values, setValues] = useState<Values>({
    name: initial?.name ?? '',
    username: initial?.username ?? '',
    password: '',
    role: initial?.role ?? 'doctor',
  });
  const set = (field: keyof Values) => (e: { target: { value: string } }) => setValues((v) => ({ ...v, [field]: e.target.value }));
  const isAdmin = initial?.role === 'admin';
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onSubmit(values);
  };
  return (
    <form className="panel form" onSubmit={submit} noValidate>
      {error ? (
        <Banner kind="error" onClose={onDismissError}>
          {error}
        </Banner>
      ) : null}
      <div className="field">
        <label htmlFor="user-name">Name</label>
        <input id="user-name" value={values.name} onChange={set('name')} required autoComplete="off" />
      </div>
      <div className="field">
        <label htmlFor="user-username">Username</label>
        <input id="user-username" value={values.username} onChange={set('username')} required autoComplete="off" />
      </div>
      <div className="field">
        <label htmlFor="user-password">{mode === 'edit' ? 'New password (optional)' : 'Password'}</label>
        <input
          id="user-password"
          type="password"
          value={values.password}
          onChange={set('password')}
          required={mode === 'create'}
          autoComplete="new-password"
          aria-describedby="user-password-hint"
        />
        <span id="user-password-hint" className="hint">
          {mode === 'edit' ? 'Leave blank to keep the current password.' : 'At least 8 characters.'}
        </span>
      </div>
      <div className="field">
        <label htmlFor="user-role">Role</label>
        {isAdmin ? (
          // Admins are made only from the command line; the form never offers the role.
          <select id="user-role" value="admin" disabled aria-describedby="user-role-hint">
            <option value="admin">admin</option>
          </select>
        ) : (
          <select id="user-role" value={values.role} onChange={set('role')} required>
            {STAFF_ROLES.map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        )}
        {isAdmin ? (
          <span id="user-role-hint" className="hint">
            Admin accounts keep their role.
          </span>
        ) : null}
      </div>
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
