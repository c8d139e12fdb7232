/**
 * Remote disconnect or permanent delete of a token: a reason from the spec's list is required; a
 * delete also wants the word DELETE typed exactly, since the device will never work again.
 */
import type { UseMutationResult } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { DeleteConfirmField, confirmsDelete } from '../../../components/DeleteConfirmField';
import { Field, Options } from '../../../components/Field';
import { FormDialog } from '../../../components/FormDialog';
import { useNotify } from '../../../components/Notifications';
import { errorMessage } from '../../../lib/api/client';
import type { SmartToken } from '../../../lib/api/types';
import { DELETE_REASONS, REVOKE_REASONS, shortTokenId, UNKNOWN_PATIENT } from '../../../lib/smartTokens';
import { useDeleteToken } from '../api/delete-token';
import { useRevokeToken } from '../api/revoke-token';
import { TOKEN_MSG } from '../messages';
import { useTokenForm } from '../useTokenForm';

const TokenCode = ({ token }: { token: SmartToken }) => <code title={token.smartTokenId}>{shortTokenId(token.smartTokenId)}</code>;

const KINDS = {
  revoke: {
    title: 'Remote Disconnect Token',
    submit: 'Disconnect Token',
    busy: 'Disconnecting…',
    reasons: REVOKE_REASONS,
    reasonRequired: TOKEN_MSG.revokeReason,
    failed: TOKEN_MSG.revokeFailed,
    done: TOKEN_MSG.revoked,
    intro: (token: SmartToken): ReactNode => (
      <p>
        Disconnect token <TokenCode token={token} /> of <strong>{token.patientName ?? UNKNOWN_PATIENT}</strong>? Its
        emergency link stops working at once, and any emergency access opened with it ends. You can reactivate it later.
      </p>
    ),
  },
  delete: {
    title: 'Permanently Delete Token',
    submit: 'Delete Permanently',
    busy: 'Deleting…',
    reasons: DELETE_REASONS,
    reasonRequired: TOKEN_MSG.deleteReason,
    failed: TOKEN_MSG.deleteFailed,
    done: TOKEN_MSG.deleted,
    intro: (token: SmartToken): ReactNode => (
      <p>
        Delete token <TokenCode token={token} />
        {token.patientName ? (
          <>
            {' '}
            of <strong>{token.patientName}</strong>
          </>
        ) : null}{' '}
        permanently? This cannot be undone; the device will never work again.
      </p>
    ),
  },
} as const;

/** Either call takes the token and the reason and answers with a message: one shape for the form. */
type ReasonCall = UseMutationResult<{ message: string }, Error, { tokenId: string; reason: string }>;

interface ReasonDialogProps {
  kind: keyof typeof KINDS;
  token: SmartToken;
  onClose: () => void;
}

export function ReasonDialog({ kind, token, onClose }: ReasonDialogProps) {
  const texts = KINDS[kind];
  const [reason, setReason] = useState('');
  const [confirmation, setConfirmation] = useState('');
  const revoke = useRevokeToken();
  const remove = useDeleteToken();
  const change = (kind === 'revoke' ? revoke : remove) as ReasonCall;
  const notify = useNotify();

  const dialogForm = useTokenForm(change, {
    check: () => {
      if (!reason) return texts.reasonRequired;
      return kind === 'delete' && !confirmsDelete(confirmation) ? TOKEN_MSG.deleteConfirm : null;
    },
    variables: () => ({ tokenId: token.smartTokenId, reason }),
    onSuccess: (result) => {
      notify('success', result.message || texts.done);
      onClose();
    },
    failure: (error) => errorMessage(error, texts.failed),
  });

  return (
    <FormDialog
      title={texts.title}
      danger
      submitLabel={texts.submit}
      busyLabel={texts.busy}
      onClose={onClose}
      {...dialogForm}
      intro={texts.intro(token)}
    >
      <Field id={`${kind}-reason`} label="Reason *">
        <select id={`${kind}-reason`} value={reason} onChange={(e) => setReason(e.target.value)} data-autofocus>
          <option value="">Select a reason</option>
          <Options values={texts.reasons} />
        </select>
      </Field>
      {kind === 'delete' ? (
        <DeleteConfirmField id="delete-confirm" value={confirmation} onValue={setConfirmation} />
      ) : null}
    </FormDialog>
  );
}
