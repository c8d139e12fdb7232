/** /security: the signed-in user's second factors: authenticator app, passkeys, recovery codes. */
import { useState } from 'react';
import { QueryBoundary } from '../../../components/QueryBoundary';
import { Banner } from '../../../components/Banner';
import { ConfirmMutation } from '../../../components/ConfirmMutation';
import { ConfirmDialog } from '../../../components/Dialog';
import { PageHeader } from '../../../components/States';
import { mutationError } from '../../../lib/api/client';
import { formatDateTime } from '../../../lib/format';
import type { MfaStatus, Passkey } from '../../../lib/api/types';
import { useMfa } from '../api/get-mfa';
import { useRegenerateRecoveryCodes } from '../api/regenerate-recovery-codes';
import { useRemovePasskey } from '../api/remove-passkey';
import { useRemoveTotp } from '../api/remove-totp';
import { AddPasskey } from '../components/AddPasskey';
import { RecoveryCodes } from '../components/RecoveryCodes';
import { TotpSetup } from '../components/TotpSetup';
import { SECURITY_MSG } from '../messages';

/** The removal confirmations' button, busy label and failure message. */
const REMOVE = { confirm: 'Remove', busy: 'Removing…', failed: SECURITY_MSG.removeFailed } as const;

type Pending = { kind: 'totp' } | { kind: 'passkey'; passkey: Passkey } | { kind: 'codes' } | null;

function Factors({ status }: { status: MfaStatus }) {
  const [codes, setCodes] = useState<string[] | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [pending, setPending] = useState<Pending>(null);
  const removeTotp = useRemoveTotp();
  const removePasskey = useRemovePasskey();
  const regenerate = useRegenerateRecoveryCodes();
  const hasFactor = status.totp || status.passkeys.length > 0;
  const close = () => {
    setPending(null);
    removeTotp.reset();
    removePasskey.reset();
    regenerate.reset();
  };

  if (codes) return <RecoveryCodes codes={codes} onDone={() => setCodes(null)} />;

  return (
    <>
      <Banner kind="success" onClose={() => setNotice(null)}>
        {notice}
      </Banner>
      <section className="card" aria-labelledby="totp-title">
        <h2 id="totp-title">Authenticator app</h2>
        {status.totp ? (
          <>
            <p>An authenticator app is set up.</p>
            <button type="button" className="btn btn-danger" onClick={() => setPending({ kind: 'totp' })}>
              Remove authenticator
            </button>
          </>
        ) : (
          <TotpSetup onConfirmed={(result) => setCodes(result.recoveryCodes)} />
        )}
      </section>
      <section className="card" aria-labelledby="passkeys-title">
        <h2 id="passkeys-title">Passkeys</h2>
        {status.passkeys.length ? (
          <ul className="passkeys">
            {status.passkeys.map((p) => (
              <li key={p.id}>
                <strong>{p.label}</strong>{' '}
                <span className="muted">
                  added {formatDateTime(p.createdAt)}
                  {p.lastUsedAt ? `, last used ${formatDateTime(p.lastUsedAt)}` : ', never used'}
                </span>{' '}
                <button type="button" className="btn btn-ghost" onClick={() => setPending({ kind: 'passkey', passkey: p })}>
                  Remove {p.label}
                </button>
              </li>
            ))}
          </ul>
        ) : (
          <p className="muted">No passkeys yet.</p>
        )}
        <AddPasskey
          onAdded={(created) => {
            setNotice(`Passkey ${created.label} added`);
            if (created.recoveryCodes) setCodes(created.recoveryCodes);
          }}
        />
      </section>
      <section className="card" aria-labelledby="recovery-title">
        <h2 id="recovery-title">Recovery codes</h2>
        <p>
          {hasFactor ? `${status.recoveryCodesLeft} of 10 recovery codes left.` : 'Recovery codes come with your first second factor.'}
        </p>
        {hasFactor ? (
          <button type="button" className="btn" onClick={() => setPending({ kind: 'codes' })}>
            Create new recovery codes
          </button>
        ) : null}
      </section>
      {pending?.kind === 'totp' ? (
        <ConfirmMutation
          texts={{ title: 'Remove the authenticator app?', ...REMOVE }}
          mutation={removeTotp}
          variables={undefined}
          onCancel={close}
          onSuccess={() => {
            close();
            setNotice('Authenticator removed');
          }}
        >
          <p>Signing in will no longer ask for a code from it.</p>
        </ConfirmMutation>
      ) : null}
      {pending?.kind === 'passkey' ? (
        <ConfirmMutation
          texts={{ title: `Remove the passkey ${pending.passkey.label}?`, ...REMOVE }}
          mutation={removePasskey}
          variables={pending.passkey.id}
          onCancel={close}
          onSuccess={() => {
            close();
            setNotice('Passkey removed');
          }}
        >
          <p>It will no longer sign you in.</p>
        </ConfirmMutation>
      ) : null}
      {pending?.kind === 'codes' ? (
        <ConfirmDialog
          title="Create new recovery codes?"
          confirmLabel="Create new codes"
          busy={regenerate.isPending}
          error={mutationError(regenerate, SECURITY_MSG.regenerateFailed)}
          onCancel={close}
          onConfirm={() =>
            regenerate.mutate(undefined, {
              onSuccess: (result) => {
                close();
                setCodes(result.recoveryCodes);
              },
            })
          }
        >
          <p>Your current recovery codes will stop working.</p>
        </ConfirmDialog>
      ) : null}
    </>
  );
}

export default function SecurityPage() {
  const query = useMfa();
  return (
    <>
      <PageHeader title="Security" />
      <p className="muted">A second factor protects your account if your password is ever guessed or stolen. Changing one signs you out everywhere else.</p>
      <QueryBoundary query={query} messages={{ loading: 'Loading your security settings…', loadFailed: SECURITY_MSG.loadFailed }}>
        {(status) => <Factors status={status} />}
      </QueryBoundary>
    </>
  );
}
