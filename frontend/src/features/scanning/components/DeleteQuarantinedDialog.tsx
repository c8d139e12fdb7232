/** The confirmation before a quarantined file is deleted for good. */
import { ConfirmMutation } from '../../../components/ConfirmMutation';
import { useNotify } from '../../../components/Notifications';
import type { QuarantinedFile } from '../../../lib/api/types';
import { useDeleteQuarantined } from '../api/delete-quarantined';
import { SCAN_MSG } from '../messages';

const TEXTS = { title: SCAN_MSG.deleteTitle, confirm: SCAN_MSG.deleteConfirm, busy: SCAN_MSG.deleteBusy, failed: SCAN_MSG.deleteFailed };

export function DeleteQuarantinedDialog({ file, onDone }: { file: QuarantinedFile; onDone: () => void }) {
  const remove = useDeleteQuarantined();
  const notify = useNotify();
  return (
    <ConfirmMutation
      texts={TEXTS}
      mutation={remove}
      variables={file.id}
      onCancel={onDone}
      onSuccess={() => {
        notify('success', SCAN_MSG.deleted(file.name));
        onDone();
      }}
    >
      <p>
        Delete <strong>{file.name}</strong> ({file.signature}) for good? It was meant for {file.container} / {file.folder}. This
        cannot be undone.
      </p>
    </ConfirmMutation>
  );
}
