/** Adding a passkey: a name for it, then the browser's own passkey prompt. */
import { useState, type FormEvent } from 'react';
import { Banner } from '../../../components/Banner';
import { Field } from '../../../components/Field';
import { ApiError } from '../../../lib/api/client';
import type { PasskeyCreated } from '../../../lib/api/types';
import { PasskeyAddressError, passkeysSupported } from '../../../lib/webauthn';
import { useRegisterPasskey } from '../api/register-passkey';
import { SECURITY_MSG } from '../messages';

function failure(error: unknown): string {
  if (error instanceof ApiError) return error.serverMessage ?? SECURITY_MSG.passkeyFailed;
  if (error instanceof PasskeyAddressError) return error.message;
  if (error instanceof DOMException) return SECURITY_MSG.passkeyCancelled;
  return SECURITY_MSG.passkeyFailed;
}

export function AddPasskey({ onAdded, restricted = false }: { onAdded: (created: PasskeyCreated) => void; restricted?: boolean }) {
  const register = useRegisterPasskey(!restricted);
  const [label, setLabel] = useState('');
  const [error, setError] = useState<string | null>(null);
  if (!passkeysSupported()) return <p className="muted">{SECURITY_MSG.passkeyUnsupported}</p>;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    if (!label.trim()) {
      setError(SECURITY_MSG.labelRequired);
      return;
    }
    register.mutate(label.trim(), {
      onSuccess: (created) => {
        setLabel('');
        onAdded(created);
      },
      onError: (err) => setError(failure(err)),
    });
  };
  return (
    <form onSubmit={submit} noValidate className="add-passkey">
      <Field id="passkey-label" label="Passkey name" name="label" maxLength={100} value={label} onValue={setLabel} hint="For example: Work laptop" />
      <Banner kind="error">{error}</Banner>
      <button type="submit" className="btn btn-primary" disabled={register.isPending}>
        {register.isPending ? 'Waiting for the passkey…' : 'Add a passkey'}
      </button>
    </form>
  );
}
