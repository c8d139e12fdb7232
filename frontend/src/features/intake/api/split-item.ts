/** POST /api/intake/items/{id}/split: a PDF item split into new items by page ranges. */
import { apiRequest } from '../../../lib/api/client';
import type { SplitIntakeDone, SplitIntakeRequest } from '../../../lib/api/types';
import { intakeKeys } from '../../../lib/queryKeys';
import { useInvalidatingMutation } from '../../../lib/useInvalidatingMutation';
import { itemPath } from './paths';

export const splitItem = (id: number, ranges: [number, number][]): Promise<SplitIntakeDone> =>
  apiRequest<SplitIntakeDone>(`${itemPath(id)}/split`, { method: 'POST', body: { ranges } satisfies SplitIntakeRequest });

export const useSplitItem = (id: number) =>
  useInvalidatingMutation((ranges: [number, number][]) => splitItem(id, ranges), [intakeKeys.all], 'settled');
