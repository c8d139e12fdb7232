/** Assigning: mode 'new' assigns the container then the chosen folders; 'update' only folders. */
import { apiRequest, seg } from '../../../lib/api/client';
import type { AssignFoldersResponse, ContainerAssignedResponse } from '../../../lib/api/types';
import { assignmentKeys, userKeys } from '../../../lib/queryKeys';
import { useInvalidatingMutation } from '../../../lib/useInvalidatingMutation';

export const assignContainer = (container: string, userId: number): Promise<ContainerAssignedResponse> =>
  apiRequest<ContainerAssignedResponse>(`/assignments/containers/${seg(container)}/users/${seg(userId)}`, {
    method: 'POST',
  });

export const assignFolders = (container: string, userId: number, folderNames: string[]): Promise<AssignFoldersResponse> =>
  apiRequest<AssignFoldersResponse>(`/assignments/containers/${seg(container)}/folders`, {
    method: 'POST',
    body: { userId, folderNames },
  });

export interface AssignInput {
  mode: 'new' | 'update';
  container: string;
  userId: number;
  folderNames: string[];
}

export async function assignResources({ mode, container, userId, folderNames }: AssignInput): Promise<void> {
  if (mode === 'new') await assignContainer(container, userId);
  if (folderNames.length > 0) await assignFolders(container, userId, folderNames);
}

// Also after a failure: the container may be assigned even if its folders were not.
export const useAssignResources = () => useInvalidatingMutation(assignResources, [assignmentKeys.all, userKeys.all], 'settled');
