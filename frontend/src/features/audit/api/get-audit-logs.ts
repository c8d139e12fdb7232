/** GET /api/blobs/audit with the server's filters and cursor paging. */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api/client';
import type { AuditPage, AuditQuery } from '../../../lib/api/types';
import { STALE } from '../../../lib/queryConfig';
import { auditKeys } from '../../../lib/queryKeys';

export const getAuditLogs = (query: AuditQuery): Promise<AuditPage> =>
  apiRequest<AuditPage>('/blobs/audit', { query: { ...query } });

export const useAuditLogs = (query: AuditQuery) =>
  useQuery({
    queryKey: auditKeys.page(query),
    queryFn: () => getAuditLogs(query),
    staleTime: STALE.auditLogs,
    placeholderData: keepPreviousData,
  });
