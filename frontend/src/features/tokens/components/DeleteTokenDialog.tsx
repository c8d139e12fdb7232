/** Permanent delete: a reason from the spec's list and the word DELETE typed exactly. */
import { useState, type FormEvent } from 'react';
import { Dialog } from '../../../components/Dialog';
import { useNotify } from '../../../components/Notifications';
import { errorMessage } from '../../../lib/api/client';
import type { SmartToken } from '../../../lib/api/types';
import { DELETE_CONFIRM_WORD, DELETE_REASONS, shortTokenId } from '../../../lib/smartTokens';
import { useDeleteToken } from '../api/delete-token';
import { TOKEN_MSG } from '../messages';

export function DeleteTokenDialog({ token, onClose }: { token: SmartToken; onClose: () => void }) {
  const [reason, setReason] = useState('');
  const [confirmation, setConfirmation] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const remove = useDeleteToken();
  const notify = useNotify();

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!reason) {
      setProblem(TOKEN_MSG.deleteReason);
      return;
    }
    if (confirmation !== DELETE_CONFIRM_WORD) {
      setProblem(TOKEN_MSG.deleteConfirm);
      return;
    }
    setProblem(null);
    remove.mutate(
      { tokenId: token.smartTokenId, reason },
      {
        onSuccess: (result) => {
          notify('success', result.message || TOKEN_MSG.deleted);
          onClose();
        },
      },
    );
  };

  const error = problem ?? (remove.isError ? errorMessage(remove.error, TOKEN_MSG.deleteFailed) : null);
  return (
    <Dialog
      title="Permanently Delete Token"
      role="alertdialog"
      onClose={onClose}
      busy={remove.isPending}
      actions={
        <>
          <button type="button" className="btn" onClick={onClose} disabled={remove.isPending}>
            Cancel
          </button>
          <button type="submit" form="delete-token-form" className="btn btn-danger" disabled={remove.isPending}>
            {remove.isPending ? 'Deleting…' : 'Delete Permanently'}
          </button>
        </>
      }
    >
      <p>
        Delete token <code title={token.smartTokenId}>{shortTokenId(token.smartTokenId)}</code>
        {token.patientName ? (
          <>
            {' '}
            of <strong>{token.patientName}</strong>
          </>
        ) : null}{' '}
        permanently? This cannot be undone; the device will never work again.
      </p>
      <form id="delete-token-form" onSubmit={submit} noValidate>
        <div className="field">
          <label htmlFor="delete-reason">Reason *</label>
          <select id="delete-reason" value={reason} onChange={(e) => setReason(e.target.value)} data-autofocus>
            <option value="">Select a reason</option>
            {DELETE_REASONS.map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="delete-confirm">Type DELETE to confirm *</label>
          <input
            id="delete-confirm"
            value={confirmation}
            onChange={(e) => setConfirmation(e.target.value)}
            autoComplete="off"
            spellCheck={false}
          />
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
