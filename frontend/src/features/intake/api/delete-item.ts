/** POST /api/intake/items/{id}/delete: the item deleted with a reason (required, audited). */
import { apiRequest } from '../../../lib/api/client';
import type { IntakeItemMessage } from '../../../lib/api/types';
import { intakeKeys } from '../../../lib/queryKeys';
import { useInvalidatingMutation } from '../../../lib/useInvalidatingMutation';
import { itemPath } from './paths';

export const deleteItem = (id: number, reason: string): Promise<IntakeItemMessage> =>
  apiRequest<IntakeItemMessage>(`${itemPath(id)}/delete`, { method: 'POST', body: { reason } });

export const useDeleteItem = (id: number) => useInvalidatingMutation((reason: string) => deleteItem(id, reason), [intakeKeys.all], 'settled');
