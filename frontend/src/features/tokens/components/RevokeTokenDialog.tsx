/** Remote disconnect: the device's link stops working at once; a reason from the spec's list is required. */
import { useState, type FormEvent } from 'react';
import { FormDialog } from '../../../components/FormDialog';
import { useNotify } from '../../../components/Notifications';
import { errorMessage } from '../../../lib/api/client';
import type { SmartToken } from '../../../lib/api/types';
import { REVOKE_REASONS, shortTokenId } from '../../../lib/smartTokens';
import { useRevokeToken } from '../api/revoke-token';
import { TOKEN_MSG } from '../messages';
import { ReasonField } from './ReasonField';

export function RevokeTokenDialog({ token, onClose }: { token: SmartToken; onClose: () => void }) {
  const [reason, setReason] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const revoke = useRevokeToken();
  const notify = useNotify();

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!reason) {
      setProblem(TOKEN_MSG.revokeReason);
      return;
    }
    setProblem(null);
    revoke.mutate(
      { tokenId: token.smartTokenId, reason },
      {
        onSuccess: (result) => {
          notify('success', result.message || TOKEN_MSG.revoked);
          onClose();
        },
      },
    );
  };

  return (
    <FormDialog
      title="Remote Disconnect Token"
      danger
      onClose={onClose}
      onSubmit={submit}
      busy={revoke.isPending}
      submitLabel="Disconnect Token"
      busyLabel="Disconnecting…"
      error={problem ?? (revoke.isError ? errorMessage(revoke.error, TOKEN_MSG.revokeFailed) : null)}
      intro={
        <p>
          Disconnect token <code title={token.smartTokenId}>{shortTokenId(token.smartTokenId)}</code> of{' '}
          <strong>{token.patientName ?? 'Unknown Patient'}</strong>? Its emergency link stops working at once, and any
          emergency access opened with it ends. You can reactivate it later.
        </p>
      }
    >
      <ReasonField id="revoke-reason" reasons={REVOKE_REASONS} value={reason} onChange={setReason} />
    </FormDialog>
  );
}
