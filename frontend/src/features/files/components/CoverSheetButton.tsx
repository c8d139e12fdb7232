/** Print cover sheet (issue 51): downloads the folder's cover sheet, busy while it is drawn; a
 * refusal is reported in the server's words. */
import { useState } from 'react';
import { errorMessage } from '../../../lib/api/client';
import { downloadCoverSheet } from '../api/cover-sheet';
import { FILE_MSG } from '../messages';

interface CoverSheetButtonProps {
  container: string;
  folder: string;
  onReport: (kind: 'error', message: string) => void;
}

export function CoverSheetButton({ container, folder, onReport }: CoverSheetButtonProps) {
  const [busy, setBusy] = useState(false);
  const print = async () => {
    setBusy(true);
    try {
      await downloadCoverSheet(container, folder);
    } catch (error) {
      onReport('error', errorMessage(error, FILE_MSG.coverSheetFailed));
    } finally {
      setBusy(false);
    }
  };
  return (
    <button type="button" className="btn" onClick={() => void print()} disabled={busy}>
      {busy ? FILE_MSG.coverSheetBusy : FILE_MSG.coverSheet}
    </button>
  );
}
