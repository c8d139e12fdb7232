/** /login: username and password; the expired-session notice; server message or fallbacks; then, for a user with a second factor, the second step. */
import { useState, type FormEvent } from 'react';
import { Navigate, useNavigate, useSearchParams } from 'react-router-dom';
import { useSession } from '../../../lib/sessionContext';
import { Banner } from '../../../components/Banner';
import { Field } from '../../../components/Field';
import { ApiError } from '../../../lib/api/client';
import type { MfaRequired } from '../../../lib/api/types';
import { needsSecondStep, useLogin } from '../api/login';
import { SecondStep } from '../components/SecondStep';

export const MSG = {
  required: 'Please enter both username and password.',
  expired: 'Your session has expired or your account has been deleted. Please log in again.',
  failed: 'Failed to login',
  unreachable: 'Login failed. Please try again.',
} as const;

function loginError(error: unknown): string {
  if (error instanceof ApiError) {
    if (error.serverMessage) return error.serverMessage;
    return error.status === 0 ? MSG.unreachable : MSG.failed;
  }
  return MSG.unreachable;
}

export default function LoginPage() {
  const [params] = useSearchParams();
  const expired = params.get('session') === 'expired';
  const { user } = useSession();
  const navigate = useNavigate();
  const login = useLogin();
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [second, setSecond] = useState<MfaRequired | null>(null);

  if (user && !login.isPending) return <Navigate to="/dashboard" replace />;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    if (!username.trim() || !password) {
      setError(MSG.required);
      return;
    }
    login.mutate(
      { username: username.trim(), password },
      {
        onSuccess: (data) => {
          if (needsSecondStep(data)) setSecond(data);
          else navigate('mfaEnrolmentRequired' in data ? '/security/setup' : '/dashboard', { replace: true });
        },
        onError: (err) => setError(loginError(err)),
      },
    );
  };

  return (
    <div className="login-page">
      <main className="login-card">
        <h1>Patient Records</h1>
        <p className="muted">Sign in with your staff account.</p>
        {expired ? <Banner kind="warning">{MSG.expired}</Banner> : null}
        <Banner kind="error" onClose={() => setError(null)}>
          {error}
        </Banner>
        {second ? (
          <SecondStep
            mfaToken={second.mfaToken}
            methods={second.methods}
            onDone={() => navigate('/dashboard', { replace: true })}
            onRestart={(message) => {
              setSecond(null);
              setPassword('');
              setError(message);
            }}
          />
        ) : (
        <form onSubmit={submit} noValidate>
          <Field
            id="login-username"
            label="Username"
            name="username"
            autoComplete="username"
            value={username}
            onValue={setUsername}
            autoFocus
          />
          <Field
            id="login-password"
            label="Password"
            name="password"
            type="password"
            autoComplete="current-password"
            value={password}
            onValue={setPassword}
          />
          <button type="submit" className="btn btn-primary btn-block" disabled={login.isPending}>
            {login.isPending ? 'Signing in…' : 'Sign in'}
          </button>
        </form>
        )}
      </main>
    </div>
  );
}
