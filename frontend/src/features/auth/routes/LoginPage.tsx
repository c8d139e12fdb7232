/** /login: username and password and/or "Sign in with {provider}" (single sign-on, per BFF_OIDC_LOCAL_PASSWORDS); the expired-session notice; server message or fallbacks; the provider's refusals (`?sso=<reason>`); the provider's sign-in taken up from `#sso=<code>`, or an account not linked yet (`#sso-link=<code>`: ask an administrator, then enter the link code they gave, or prove the account's password once), only in the tab that started it; then, for a user with a second factor, the second step. */
import { useEffect, useLayoutEffect, useRef, useState, type FormEvent, type Ref } from 'react';
import { Navigate, useNavigate, useSearchParams } from 'react-router-dom';
import { useSession } from '../../../lib/sessionContext';
import { Banner } from '../../../components/Banner';
import { Field } from '../../../components/Field';
import { ApiError } from '../../../lib/api/client';
import type { LoginResponse, MfaRequired } from '../../../lib/api/types';
import { signedOutMessage } from '../../../lib/signOutReasons';
import { needsSecondStep, useLogin } from '../api/login';
import {
  SSO_START,
  clearSsoStarted,
  markSsoStarted,
  ssoCodeIn,
  ssoMessage,
  ssoStartedHere,
  useCompleteSso,
  useLinkSso,
  useSsoConfig,
} from '../api/sso';
import { SecondStep } from '../components/SecondStep';
import { findShell } from '../loginShell';
import { SSO_MSG } from '../messages';

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
  const complete = useCompleteSso();
  const linkAccount = useLinkSso();
  const sso = useSsoConfig().data;
  const ssoEnabled = sso?.enabled === true;
  const provider = sso?.displayName ?? 'single sign-on';
  const ssoReason = params.get('sso');
  // What was typed into index.html's static form before this page took it over (loginShell.ts).
  const [shell] = useState(findShell);
  const passwordField = useRef<HTMLInputElement>(null);
  const [username, setUsername] = useState(() => shell.username?.value ?? '');
  const [password, setPassword] = useState(() => shell.password?.value ?? '');
  const [linkCode, setLinkCode] = useState('');
  // Back from the provider: what the callback left in the address, and whether this tab asked for it
  // (a link to /login#sso=... made by someone else must not sign this browser in as them; the server
  // also refuses a code in any browser but the one that started the sign-in).
  const [arrival] = useState(() => {
    const found = ssoCodeIn(window.location.hash);
    return found && { ...found, here: ssoStartedHere() };
  });
  const [error, setError] = useState<string | null>(() => (arrival && !arrival.here ? SSO_MSG.notStartedHere : null));
  const [second, setSecond] = useState<MfaRequired | null>(null);
  // The offer to link an account the provider signed in but Patient Records does not know yet.
  const [linkOffer, setLinkOffer] = useState<string | null>(() => (arrival?.here && arrival.link ? arrival.code : null));
  const taken = useRef(false);

  const signedIn = (data: LoginResponse) => {
    if (needsSecondStep(data)) setSecond(data);
    else navigate('mfaEnrolmentRequired' in data ? '/security/setup' : '/dashboard', { replace: true });
  };

  // The app renders this page between the browser's other work (main.tsx): what was typed into
  // the static form meanwhile (its fields, gone from the page, keep it) is taken up before the
  // first paint of this one: one render more, once, and only when the static form was there.
  useLayoutEffect(() => {
    /* eslint-disable react-hooks/set-state-in-effect -- the static form is outside React */
    if (shell.username) setUsername(shell.username.value);
    if (shell.password) setPassword(shell.password.value);
    /* eslint-enable react-hooks/set-state-in-effect */
    if (shell.passwordFocused) passwordField.current?.focus();
  }, [shell]);

  // The one-time code is taken out of the address at once and traded once.
  useEffect(() => {
    if (arrival === null || taken.current) return;
    taken.current = true;
    window.history.replaceState(window.history.state, '', window.location.pathname + window.location.search);
    clearSsoStarted();
    if (arrival.here && !arrival.link) {
      complete.mutate({ code: arrival.code }, { onSuccess: signedIn, onError: (err) => setError(loginError(err)) });
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps -- once, on arrival
  }, []);

  if (user && !login.isPending && !complete.isPending && !linkAccount.isPending) return <Navigate to="/dashboard" replace />;

  const linked = {
    onSuccess: (data: LoginResponse) => {
      setLinkOffer(null);
      signedIn(data);
    },
    onError: (err: unknown) => setError(loginError(err)),
  };

  const submitLink = (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    if (!username.trim() || !password || linkOffer === null) {
      setError(MSG.required);
      return;
    }
    linkAccount.mutate({ code: linkOffer, username: username.trim(), password }, linked);
  };

  const submitLinkCode = (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    if (!linkCode.trim() || linkOffer === null) {
      setError(SSO_MSG.codeRequired);
      return;
    }
    linkAccount.mutate({ code: linkOffer, linkCode: linkCode.trim() }, linked);
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    if (!username.trim() || !password) {
      setError(MSG.required);
      return;
    }
    login.mutate(
      { username: username.trim(), password },
      { onSuccess: signedIn, onError: (err) => setError(loginError(err)) },
    );
  };

  return (
    <div className="login-page">
      <main className="login-card">
        <h1>Patient Records</h1>
        <p className="muted">Sign in with your staff account.</p>
        {expired ? <Banner kind="warning">{signedOutMessage(params.get('reason'))}</Banner> : null}
        {ssoReason && ssoEnabled && !error ? <Banner kind="error">{ssoMessage(ssoReason, provider)}</Banner> : null}
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
        ) : linkOffer !== null ? (
          <section aria-labelledby="sso-link-heading">
            <h2 id="sso-link-heading">
              {SSO_MSG.notLinked(provider)}
            </h2>
            <p>
              <strong>{SSO_MSG.askAdmin}</strong>
            </p>
            <form onSubmit={submitLinkCode} noValidate aria-labelledby="sso-code-heading">
              <h3 id="sso-code-heading">{SSO_MSG.codeHeading}</h3>
              <p className="muted">{SSO_MSG.codeIntro}</p>
              <Field
                id="link-code"
                label={SSO_MSG.codeLabel}
                name="link-code"
                autoComplete="off"
                autoCapitalize="characters"
                spellCheck={false}
                value={linkCode}
                onValue={setLinkCode}
                autoFocus
              />
              <button type="submit" className="btn btn-primary btn-block" disabled={linkAccount.isPending}>
                {linkAccount.isPending ? SSO_MSG.linking : SSO_MSG.codeButton}
              </button>
            </form>
            {sso?.localPasswords === 'none' ? null : (
              <form onSubmit={submitLink} noValidate aria-labelledby="sso-password-heading">
                <h3 id="sso-password-heading">{SSO_MSG.passwordHeading}</h3>
                <p className="muted">{SSO_MSG.proveIntro}</p>
                <CredentialFields prefix="link" username={username} password={password} onUsername={setUsername} onPassword={setPassword} />
                <button type="submit" className="btn btn-block" disabled={linkAccount.isPending}>
                  {linkAccount.isPending ? SSO_MSG.linking : SSO_MSG.linkButton}
                </button>
              </form>
            )}
            <button
              type="button"
              className="btn btn-block"
              onClick={() => {
                setLinkOffer(null);
                setError(null);
              }}
            >
              {SSO_MSG.back}
            </button>
          </section>
        ) : (
        <>
        {ssoEnabled ? (
          <a className="btn btn-primary btn-block" href={SSO_START} onClick={markSsoStarted}>
            Sign in with {provider}
          </a>
        ) : null}
        {complete.isPending ? <p className="muted">Signing in…</p> : null}
        {ssoEnabled && sso.localPasswords === 'none' ? null : (
        <>
        {ssoEnabled ? (
          <p className="muted login-or">{sso.localPasswords === 'admins' ? 'Administrators: sign in with a password' : 'or sign in with a password'}</p>
        ) : null}
        {/* index.html holds this form as it first renders (the static sign-in form); method post:
            a submission that ever escaped the handler would never put the password in the URL. */}
        <form onSubmit={submit} method="post" noValidate>
          <CredentialFields prefix="login" username={username} password={password} onUsername={setUsername} onPassword={setPassword} passwordRef={passwordField} autoFocus />
          <button type="submit" className={ssoEnabled ? 'btn btn-block' : 'btn btn-primary btn-block'} disabled={login.isPending}>
            {login.isPending ? 'Signing in…' : 'Sign in'}
          </button>
        </form>
        </>
        )}
        </>
        )}
      </main>
    </div>
  );
}

interface CredentialFieldsProps {
  /** The fields' ids: `${prefix}-username`, `${prefix}-password`. */
  prefix: string;
  username: string;
  password: string;
  onUsername: (value: string) => void;
  onPassword: (value: string) => void;
  passwordRef?: Ref<HTMLInputElement>;
  autoFocus?: boolean;
}

/** A staff account's username and password. */
function CredentialFields({ prefix, username, password, onUsername, onPassword, passwordRef, autoFocus }: CredentialFieldsProps) {
  return (
    <>
      <Field id={`${prefix}-username`} label="Username" name="username" autoComplete="username" value={username} onValue={onUsername} autoFocus={autoFocus} />
      <Field id={`${prefix}-password`} label="Password" name="password" type="password" autoComplete="current-password" value={password} onValue={onPassword} ref={passwordRef} />
    </>
  );
}
