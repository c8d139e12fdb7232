/** Permanent delete: a reason from the spec's list and the word DELETE typed exactly. */
import { useState, type FormEvent } from 'react';
import { FormDialog } from '../../../components/FormDialog';
import { useNotify } from '../../../components/Notifications';
import { errorMessage } from '../../../lib/api/client';
import type { SmartToken } from '../../../lib/api/types';
import { DELETE_CONFIRM_WORD, DELETE_REASONS, shortTokenId } from '../../../lib/smartTokens';
import { useDeleteToken } from '../api/delete-token';
import { TOKEN_MSG } from '../messages';
import { ReasonField } from './ReasonField';

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

  return (
    <FormDialog
      title="Permanently Delete Token"
      danger
      onClose={onClose}
      onSubmit={submit}
      busy={remove.isPending}
      submitLabel="Delete Permanently"
      busyLabel="Deleting…"
      error={problem ?? (remove.isError ? errorMessage(remove.error, TOKEN_MSG.deleteFailed) : null)}
      intro={
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
      }
    >
      <ReasonField id="delete-reason" reasons={DELETE_REASONS} value={reason} onChange={setReason} />
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
    </FormDialog>
  );
}
