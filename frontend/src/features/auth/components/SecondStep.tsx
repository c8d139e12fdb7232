/** The second sign-in step: an authenticator code, a passkey or a recovery code for the mfaToken. */
import { useState, type FormEvent } from 'react';
import { Banner } from '../../../components/Banner';
import { Field } from '../../../components/Field';
import { ApiError } from '../../../lib/api/client';
import type { MfaMethod } from '../../../lib/api/types';
import { PasskeyAddressError } from '../../../lib/webauthn';
import { useLoginMfa } from '../api/login-mfa';
import { MFA_MSG } from '../messages';

type Mode = 'totp' | 'recovery' | 'passkey';

interface SecondStepProps {
  mfaToken: string;
  methods: MfaMethod[];
  onDone: () => void;
  /** Back to the password step, with a message when the mfaToken expired. */
  onRestart: (message: string | null) => void;
}

function firstMode(methods: MfaMethod[]): Mode {
  if (methods.includes('totp')) return 'totp';
  if (methods.includes('webauthn')) return 'passkey';
  return 'recovery';
}

export function SecondStep({ mfaToken, methods, onDone, onRestart }: SecondStepProps) {
  const [mode, setMode] = useState<Mode>(() => firstMode(methods));
  const [code, setCode] = useState('');
  const [error, setError] = useState<string | null>(null);
  const verify = useLoginMfa();

  const fail = (err: unknown) => {
    if (err instanceof ApiError) {
      if (err.status === 401 && err.serverMessage === MFA_MSG.expired) {
        onRestart(MFA_MSG.expired);
        return;
      }
      setError(err.serverMessage ?? MFA_MSG.failed);
      return;
    }
    if (err instanceof PasskeyAddressError) setError(err.message);
    else setError(err instanceof DOMException ? MFA_MSG.passkeyCancelled : MFA_MSG.failed);
  };

  const send = (step: { code?: string; passkey?: boolean }) => {
    setError(null);
    verify.mutate({ mfaToken, ...step }, { onSuccess: onDone, onError: fail });
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!code.trim()) {
      setError(MFA_MSG.codeRequired);
      return;
    }
    send({ code: code.trim() });
  };

  const switchTo = (next: Mode) => {
    setMode(next);
    setCode('');
    setError(null);
  };

  return (
    <section aria-labelledby="second-step-title">
      <h2 id="second-step-title">{MFA_MSG.title}</h2>
      <Banner kind="error" onClose={() => setError(null)}>
        {error}
      </Banner>
      {mode === 'passkey' ? (
        <>
          <p className="muted">{MFA_MSG.passkeyPrompt}</p>
          <button type="button" className="btn btn-primary btn-block" disabled={verify.isPending} onClick={() => send({ passkey: true })}>
            {verify.isPending ? 'Waiting for your passkey…' : 'Sign in with a passkey'}
          </button>
        </>
      ) : (
        <form onSubmit={submit} noValidate>
          <p className="muted">{mode === 'totp' ? MFA_MSG.totpPrompt : MFA_MSG.recoveryPrompt}</p>
          <Field
            id="mfa-code"
            label={mode === 'totp' ? 'Authentication code' : 'Recovery code'}
            name="code"
            autoComplete="one-time-code"
            inputMode={mode === 'totp' ? 'numeric' : 'text'}
            value={code}
            onValue={setCode}
            autoFocus
          />
          <button type="submit" className="btn btn-primary btn-block" disabled={verify.isPending}>
            {verify.isPending ? 'Verifying…' : 'Verify'}
          </button>
        </form>
      )}
      <div className="second-step-links">
        {mode !== 'totp' && methods.includes('totp') ? (
          <button type="button" className="btn btn-ghost" onClick={() => switchTo('totp')}>
            Use your authenticator app
          </button>
        ) : null}
        {mode !== 'passkey' && methods.includes('webauthn') ? (
          <button type="button" className="btn btn-ghost" onClick={() => switchTo('passkey')}>
            Use a passkey
          </button>
        ) : null}
        {mode !== 'recovery' && methods.includes('recovery') ? (
          <button type="button" className="btn btn-ghost" onClick={() => switchTo('recovery')}>
            Use a recovery code
          </button>
        ) : null}
        <button type="button" className="btn btn-ghost" onClick={() => onRestart(null)}>
          Back to sign in
        </button>
      </div>
    </section>
  );
}
