/** The confirmation before deleting a file (admins: it goes to the trash); the outcome is reported as a banner by the folder page. */
import { ConfirmMutation } from '../../../components/ConfirmMutation';
import type { StoredFile } from '../../../lib/api/types';
import { useDeleteFile } from '../api/delete-file';
import { FILE_MSG } from '../messages';

interface DeleteFileDialogProps {
  container: string;
  folder: string;
  file: StoredFile;
  /** BFF_TRASH_DAYS as the server reports it (null until known). */
  trashDays: number | null;
  /** With the success message, or null when cancelled. */
  onDone: (message: string | null) => void;
}

export function DeleteFileDialog({ container, folder, file, trashDays, onDone }: DeleteFileDialogProps) {
  const remove = useDeleteFile(container, folder);
  const title = file.isProfileImage ? 'Delete profile image' : 'Delete file';
  return (
    <ConfirmMutation
      texts={{ title, confirm: 'Delete', busy: 'Deleting…', failed: FILE_MSG.deleteFailed }}
      mutation={remove}
      variables={file.name}
      onCancel={() => onDone(null)}
      onSuccess={(data) => onDone(data.message || FILE_MSG.deleted)}
    >
      <p>
        Are you sure you want to delete <strong>{file.name}</strong>?
      </p>
      {trashDays !== null ? <p>{FILE_MSG.toTrash(trashDays)}</p> : null}
    </ConfirmMutation>
  );
}
