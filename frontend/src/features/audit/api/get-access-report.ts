/** GET /api/blobs/audit/report: one folder's access history (order: oldest or newest first), paged by cursor. */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api/client';
import type { AccessReportPage, AccessReportQuery } from '../../../lib/api/types';
import { auditReportKeys } from '../../../lib/queryKeys';

export const getAccessReport = (query: AccessReportQuery): Promise<AccessReportPage> =>
  apiRequest<AccessReportPage>('/blobs/audit/report', { query: { ...query } });

/** Not refetched on focus or on live events: each fetch is an audited access. */
export const useAccessReport = (query: AccessReportQuery) =>
  useQuery({
    queryKey: auditReportKeys.report(query),
    queryFn: () => getAccessReport(query),
    placeholderData: keepPreviousData,
    staleTime: Infinity,
    refetchOnWindowFocus: false,
  });
