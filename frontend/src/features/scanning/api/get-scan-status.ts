/** GET /api/admin/scanning (admins): the scanner configured or not, answering or not, what it holds. */
import { useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api/client';
import type { ScanStatus } from '../../../lib/api/types';
import { scanKeys } from '../../../lib/queryKeys';

export const getScanStatus = (): Promise<ScanStatus> => apiRequest<ScanStatus>('/admin/scanning');

export const useScanStatus = () => useQuery({ queryKey: scanKeys.status(), queryFn: getScanStatus });
