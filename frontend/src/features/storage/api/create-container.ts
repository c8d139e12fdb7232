/** POST /api/admin/containers {name}. */
import { apiRequest } from '../../../lib/api/client';
import type { CreateContainerResponse } from '../../../lib/api/types';
import { storageKeys } from '../../../lib/queryKeys';
import { useInvalidatingMutation } from '../../../lib/useInvalidatingMutation';

export const createContainer = (name: string): Promise<CreateContainerResponse> =>
  apiRequest<CreateContainerResponse>('/admin/containers', { method: 'POST', body: { name } });

export const useCreateContainer = () => useInvalidatingMutation(createContainer, [storageKeys.containers]);
