/** /security: the signed-in user's second factors: authenticator app, passkeys, recovery codes. */
import { useState } from 'react';
import { QueryBoundary } from '../../../components/QueryBoundary';
import { Banner } from '../../../components/Banner';
import { PageHeader } from '../../../components/States';
import { formatDateTime } from '../../../lib/format';
import type { MfaStatus, Passkey } from '../../../lib/api/types';
import { useMfa } from '../api/get-mfa';
import { useRegenerateRecoveryCodes } from '../api/regenerate-recovery-codes';
import { useRemovePasskey } from '../api/remove-passkey';
import { useRemoveTotp } from '../api/remove-totp';
import { AddPasskey } from '../components/AddPasskey';
import { ConfirmIdentityDialog } from '../components/ConfirmIdentityDialog';
import { RecoveryCodes } from '../components/RecoveryCodes';
import { TotpSetup } from '../components/TotpSetup';
import { SECURITY_MSG } from '../messages';

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
        <ConfirmIdentityDialog
          title="Remove the authenticator app?"
          submitLabel="Remove"
          danger
          totp={status.totp}
          mutation={removeTotp}
          variables={(identity) => identity}
          failed={SECURITY_MSG.removeFailed}
          onClose={close}
          onDone={() => {
            close();
            setNotice('Authenticator removed');
          }}
        />
      ) : null}
      {pending?.kind === 'passkey' ? (
        <ConfirmIdentityDialog
          title={`Remove the passkey ${pending.passkey.label}?`}
          submitLabel="Remove"
          danger
          totp={status.totp}
          mutation={removePasskey}
          variables={(identity) => ({ ...identity, id: pending.passkey.id })}
          failed={SECURITY_MSG.removeFailed}
          onClose={close}
          onDone={() => {
            close();
            setNotice('Passkey removed');
          }}
        />
      ) : null}
      {pending?.kind === 'codes' ? (
        <ConfirmIdentityDialog
          title="Create new recovery codes?"
          submitLabel="Create new codes"
          totp={status.totp}
          mutation={regenerate}
          variables={(identity) => identity}
          failed={SECURITY_MSG.regenerateFailed}
          onClose={close}
          onDone={(result) => {
            close();
            setCodes(result.recoveryCodes);
          }}
        />
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
