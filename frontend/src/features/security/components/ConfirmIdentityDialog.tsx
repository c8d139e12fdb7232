/** Confirms who is at the keyboard before a factor changes: a current authenticator code or the password. */
import { useState, type FormEvent } from 'react';
import type { UseMutationResult } from '@tanstack/react-query';
import { Field } from '../../../components/Field';
import { FormDialog } from '../../../components/FormDialog';
import { mutationError } from '../../../lib/api/client';
import type { ConfirmIdentity } from '../../../lib/api/types';
import { SECURITY_MSG } from '../messages';

interface ConfirmIdentityDialogProps<TData, TVariables> {
  title: string;
  submitLabel: string;
  danger?: boolean;
  /** Whether the user has an authenticator (then a code is offered). */
  totp: boolean;
  mutation: UseMutationResult<TData, Error, TVariables>;
  /** The mutation's variables for the confirmed identity. */
  variables: (identity: ConfirmIdentity) => TVariables;
  failed: string;
  onDone: (data: TData) => void;
  onClose: () => void;
}

export function ConfirmIdentityDialog<TData, TVariables>({
  title,
  submitLabel,
  danger,
  totp,
  mutation,
  variables,
  failed,
  onDone,
  onClose,
}: ConfirmIdentityDialogProps<TData, TVariables>) {
  const [code, setCode] = useState('');
  const [password, setPassword] = useState('');
  const [missing, setMissing] = useState(false);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const body: ConfirmIdentity = code.trim() ? { code: code.trim() } : { password };
    setMissing(!code.trim() && !password);
    if (code.trim() || password) mutation.mutate(variables(body), { onSuccess: onDone });
  };
  return (
    <FormDialog
      title={title}
      intro={<p>{SECURITY_MSG.identityRequired}</p>}
      onSubmit={submit}
      onClose={onClose}
      submitLabel={submitLabel}
      busyLabel="Working…"
      busy={mutation.isPending}
      error={missing ? SECURITY_MSG.identityRequired : mutationError(mutation, failed)}
      danger={danger}
    >
      {totp ? <Field id="identity-code" label="Authenticator code" inputMode="numeric" autoComplete="one-time-code" value={code} onValue={setCode} /> : null}
      <Field id="identity-password" label="Your password" type="password" autoComplete="current-password" value={password} onValue={setPassword} />
    </FormDialog>
  );
}
