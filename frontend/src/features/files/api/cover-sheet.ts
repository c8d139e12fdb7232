/** GET /api/intake/cover-sheet/{container}/{folder}: a new cover sheet of the folder (PDF,
 * downloaded): scanned as a document's first page, it files the document here (issue 51). For
 * those who may upload to the folder and the intake permission's holders (the server decides). */
import { apiBlob, seg } from '../../../lib/api/client';
import { saveBlob } from '../../../lib/download';

/** The server's own name for it: no patient detail in a download's name. */
export const COVER_SHEET_FILE = 'cover-sheet.pdf';

export async function downloadCoverSheet(container: string, folder: string): Promise<void> {
  saveBlob(await apiBlob(`/intake/cover-sheet/${seg(container)}/${seg(folder)}`), COVER_SHEET_FILE);
}
