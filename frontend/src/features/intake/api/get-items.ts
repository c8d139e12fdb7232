/** GET /api/intake/items?status=&page=&pageSize=: one page of the inbox, newest first. */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api/client';
import type { IntakeItems, IntakeStatusFilter } from '../../../lib/api/types';
import { intakeKeys } from '../../../lib/queryKeys';
import { ITEMS_PATH } from './paths';

/** Items per page. */
export const INTAKE_PAGE_SIZE = 20;

export const getIntakeItems = (status: IntakeStatusFilter, page: number): Promise<IntakeItems> =>
  apiRequest<IntakeItems>(ITEMS_PATH, { query: { status, page, pageSize: INTAKE_PAGE_SIZE } });

export const useIntakeItems = (status: IntakeStatusFilter, page: number) =>
  useQuery({
    queryKey: intakeKeys.list(status, page),
    queryFn: () => getIntakeItems(status, page),
    // The previous page stays on screen while the next one loads.
    placeholderData: keepPreviousData,
  });
