/** GET /patients/admin/assigned-folders/{container}: folder name -> the token linked to it. */
import { useQuery } from '@tanstack/react-query';
import { apiRequest, seg } from '../../../lib/api/client';
import type { AssignedFoldersResponse } from '../../../lib/api/types';
import { tokenKeys } from '../../../lib/queryKeys';

export const getAssignedFolders = (container: string): Promise<AssignedFoldersResponse> =>
  apiRequest<AssignedFoldersResponse>(`/patients/admin/assigned-folders/${seg(container)}`, { base: 'root' });

export const useAssignedFolders = (container: string | null) =>
  useQuery({
    queryKey: tokenKeys.assignedFolders(container ?? ''),
    queryFn: () => getAssignedFolders(container ?? ''),
    enabled: Boolean(container),
  });
