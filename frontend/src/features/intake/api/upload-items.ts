/** POST /api/intake/items (multipart, `file` parts): scans added to the inbox. Sent one file a
 * request (a batch of one), so that each has its own progress and outcome. */
import { uploadMultipart } from '../../../lib/api/upload';
import type { UploadedIntakeBatch } from '../../../lib/api/types';
import { ITEMS_PATH } from './paths';

export const uploadToIntake = (file: File, onProgress?: (percent: number) => void): Promise<UploadedIntakeBatch> =>
  uploadMultipart<UploadedIntakeBatch>({ path: ITEMS_PATH, fields: [], file, fileName: file.name, onProgress });
