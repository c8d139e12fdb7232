/** GET /api/intake/separator-sheet: the separator sheet's PDF, downloaded (printed between the
 * documents of a batch, it splits the scan there). */
import { apiBlob } from '../../../lib/api/client';
import { saveBlob } from '../../../lib/download';

export const SEPARATOR_FILE = 'separator-sheet.pdf';

export async function downloadSeparatorSheet(): Promise<void> {
  saveBlob(await apiBlob('/intake/separator-sheet'), SEPARATOR_FILE);
}
