/** Setting up an authenticator app: a QR code and the secret for manual entry, confirmed with the app's first code. */
import { useState, type FormEvent } from 'react';
import { Banner } from '../../../components/Banner';
import { Field } from '../../../components/Field';
import { QrCode } from '../../../components/QrCode';
import { mutationError } from '../../../lib/api/client';
import type { RecoveryCodesResponse } from '../../../lib/api/types';
import { useConfirmTotp } from '../api/confirm-totp';
import { useStartTotp } from '../api/start-totp';
import { SECURITY_MSG } from '../messages';

interface TotpSetupProps {
  onConfirmed: (result: RecoveryCodesResponse) => void;
  /** From a restricted session: its token ends on confirmation, so refetch nothing. */
  restricted?: boolean;
}

export function TotpSetup({ onConfirmed, restricted = false }: TotpSetupProps) {
  const start = useStartTotp();
  const confirm = useConfirmTotp(!restricted);
  const [code, setCode] = useState('');
  const [missing, setMissing] = useState(false);

  if (!start.data) {
    return (
      <div>
        <Banner kind="error">{mutationError(start, SECURITY_MSG.setupFailed)}</Banner>
        <button type="button" className="btn btn-primary" onClick={() => start.mutate()} disabled={start.isPending}>
          {start.isPending ? 'Starting…' : 'Set up an authenticator app'}
        </button>
      </div>
    );
  }

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setMissing(!code.trim());
    if (code.trim()) confirm.mutate(code.trim(), { onSuccess: onConfirmed });
  };

  return (
    <div className="totp-setup">
      <p>Scan this QR code with your authenticator app, then enter the 6-digit code it shows.</p>
      <QrCode value={start.data.otpauthUrl} label="QR code for your authenticator app" />
      <p>
        Or enter this key by hand: <code data-testid="totp-secret">{start.data.secret}</code>
      </p>
      <form onSubmit={submit} noValidate>
        <Field
          id="totp-code"
          label="Code from the app"
          name="code"
          inputMode="numeric"
          autoComplete="one-time-code"
          value={code}
          onValue={setCode}
        />
        <Banner kind="error">{missing ? SECURITY_MSG.codeRequired : mutationError(confirm, SECURITY_MSG.setupFailed)}</Banner>
        <button type="submit" className="btn btn-primary" disabled={confirm.isPending}>
          {confirm.isPending ? 'Confirming…' : 'Confirm'}
        </button>
      </form>
    </div>
  );
}
