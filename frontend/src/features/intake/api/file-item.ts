/** POST /api/intake/items/{id}/file: file an item to a patient's folder (409: someone else
 * filed or deleted it first, and the server says who and when). */
import { apiRequest } from '../../../lib/api/client';
import type { FiledIntakeItem, FileIntakeRequest } from '../../../lib/api/types';
import { assignmentKeys, fileKeys, intakeKeys } from '../../../lib/queryKeys';
import { useInvalidatingMutation } from '../../../lib/useInvalidatingMutation';
import { itemPath } from './paths';

export const fileItem = (id: number, body: FileIntakeRequest): Promise<FiledIntakeItem> =>
  apiRequest<FiledIntakeItem>(`${itemPath(id)}/file`, { method: 'POST', body });

// The inbox, and the folders' listings and counts that gained a file. Also after a failure: a
// 409 means the item left the inbox by another hand.
export const useFileItem = (id: number) =>
  useInvalidatingMutation((body: FileIntakeRequest) => fileItem(id, body), [intakeKeys.all, fileKeys.all, assignmentKeys.myStats()], 'settled');
