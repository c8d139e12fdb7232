/** POST /api/intake/items/{id}/rotate: a PDF item's pages (all, or those given) turned clockwise. */
import { apiRequest } from '../../../lib/api/client';
import type { IntakeItem, RotateIntakeRequest } from '../../../lib/api/types';
import { intakeKeys } from '../../../lib/queryKeys';
import { useInvalidatingMutation } from '../../../lib/useInvalidatingMutation';
import { itemPath } from './paths';

export const rotateItem = (id: number, body: RotateIntakeRequest): Promise<IntakeItem> =>
  apiRequest<IntakeItem>(`${itemPath(id)}/rotate`, { method: 'POST', body });

export const useRotateItem = (id: number) =>
  useInvalidatingMutation((body: RotateIntakeRequest) => rotateItem(id, body), [intakeKeys.all]);
