/** GET /api/blobs/audit/status: verified up to the latest signed checkpoint, or broken. */
import { useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api/client';
import type { AuditStatus } from '../../../lib/api/types';
import { auditReportKeys } from '../../../lib/queryKeys';

export const getAuditStatus = (): Promise<AuditStatus> => apiRequest<AuditStatus>('/blobs/audit/status');

export const useAuditStatus = () =>
  useQuery({ queryKey: auditReportKeys.status, queryFn: getAuditStatus, refetchInterval: 60_000 });
