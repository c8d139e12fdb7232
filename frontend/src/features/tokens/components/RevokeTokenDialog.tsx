/** Remote disconnect: the device's link stops working at once; a reason from the spec's list is required. */
import { useState, type FormEvent } from 'react';
import { Dialog } from '../../../components/Dialog';
import { useNotify } from '../../../components/Notifications';
import { errorMessage } from '../../../lib/api/client';
import type { SmartToken } from '../../../lib/api/types';
import { REVOKE_REASONS, shortTokenId } from '../../../lib/smartTokens';
import { useRevokeToken } from '../api/revoke-token';
import { TOKEN_MSG } from '../messages';

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

  const error = problem ?? (revoke.isError ? errorMessage(revoke.error, TOKEN_MSG.revokeFailed) : null);
  return (
    <Dialog
      title="Remote Disconnect Token"
      role="alertdialog"
      onClose={onClose}
      busy={revoke.isPending}
      actions={
        <>
          <button type="button" className="btn" onClick={onClose} disabled={revoke.isPending}>
            Cancel
          </button>
          <button type="submit" form="revoke-token-form" className="btn btn-danger" disabled={revoke.isPending}>
            {revoke.isPending ? 'Disconnecting…' : 'Disconnect Token'}
          </button>
        </>
      }
    >
      <p>
        Disconnect token <code title={token.smartTokenId}>{shortTokenId(token.smartTokenId)}</code> of{' '}
        <strong>{token.patientName ?? 'Unknown Patient'}</strong>? Its emergency link stops working at once, and any
        emergency access opened with it ends. You can reactivate it later.
      </p>
      <form id="revoke-token-form" onSubmit={submit} noValidate>
        <div className="field">
          <label htmlFor="revoke-reason">Reason *</label>
          <select id="revoke-reason" value={reason} onChange={(e) => setReason(e.target.value)} data-autofocus>
            <option value="">Select a reason</option>
            {REVOKE_REASONS.map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        </div>
        {error ? (
          <p className="banner banner-error" role="alert">
            {error}
          </p>
        ) : null}
      </form>
    </Dialog>
  );
}
