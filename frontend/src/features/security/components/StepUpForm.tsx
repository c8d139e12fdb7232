/** The "Confirm it's you" form: the password or a current code, sent to POST /api/auth/confirm-identity. */
import { useState, type FormEvent } from 'react';
import { useMutation } from '@tanstack/react-query';
import { Field } from '../../../components/Field';
import { FormDialog } from '../../../components/FormDialog';
import { mutationError } from '../../../lib/api/client';
import type { ConfirmIdentity } from '../../../lib/api/types';
import { confirmIdentity } from '../api/confirm-identity';
import { useMfa } from '../api/get-mfa';
import { SECURITY_MSG } from '../messages';

/** The proof for the retry, or null when cancelled. */
export type Answer = (proof: string | null) => void;

export default function StepUpForm({ onDone }: { onDone: Answer }) {
  const factors = useMfa();
  const [code, setCode] = useState('');
  const [password, setPassword] = useState('');
  const [missing, setMissing] = useState(false);
  const confirm = useMutation({ mutationFn: confirmIdentity, onSuccess: (result) => onDone(result.stepUp) });
  const offerCode = Boolean(factors.data && (factors.data.totp || factors.data.recoveryCodesLeft > 0));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const body: ConfirmIdentity = code.trim() ? { code: code.trim() } : { password };
    setMissing(!code.trim() && !password);
    if (code.trim() || password) confirm.mutate(body);
  };
  return (
    <FormDialog
      title="Confirm it's you"
      intro={<p>{offerCode ? SECURITY_MSG.stepUpIntro : SECURITY_MSG.stepUpIntroPassword}</p>}
      onSubmit={submit}
      onClose={() => onDone(null)}
      submitLabel="Confirm"
      busyLabel="Checking…"
      busy={confirm.isPending}
      error={missing ? SECURITY_MSG.identityRequired : mutationError(confirm, SECURITY_MSG.confirmFailed)}
    >
      <Field id="step-up-password" label="Your password" type="password" autoComplete="current-password" value={password} onValue={setPassword} data-autofocus />
      {offerCode ? (
        <Field
          id="step-up-code"
          label="Or a code from your authenticator"
          hint="A recovery code works too."
          inputMode="numeric"
          autoComplete="one-time-code"
          value={code}
          onValue={setCode}
        />
      ) : null}
    </FormDialog>
  );
}
