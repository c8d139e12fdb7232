/** GET /api/admin/quarantine?page=&pageSize= (admins): one page of quarantined files, newest first. */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api/client';
import type { QuarantinePage } from '../../../lib/api/types';
import { scanKeys } from '../../../lib/queryKeys';

/** Quarantined files per page. */
export const QUARANTINE_PAGE_SIZE = 20;

export const getQuarantine = (page: number): Promise<QuarantinePage> =>
  apiRequest<QuarantinePage>('/admin/quarantine', { query: { page, pageSize: QUARANTINE_PAGE_SIZE } });

export const useQuarantine = (page: number) =>
  useQuery({
    queryKey: scanKeys.quarantine(page),
    queryFn: () => getQuarantine(page),
    // The previous page stays on screen while the next one loads.
    placeholderData: keepPreviousData,
  });
