/**
 * A folder's trash (admins): GET .../trash, POST .../trash/{blob}/restore and
 * DELETE .../trash/{blob} with {confirmation: "DELETE"}.
 */
import { useQuery } from '@tanstack/react-query';
import { apiRequest, seg } from '../../../lib/api/client';
import type { PurgeTrashedRequest, PurgeTrashedResponse, RestoreTrashedResponse, TrashListResponse } from '../../../lib/api/types';
import { assignmentKeys, fileKeys } from '../../../lib/queryKeys';
import { useInvalidatingMutation } from '../../../lib/useInvalidatingMutation';
import { folderPath } from './paths';

const trashPath = (container: string, folder: string): string => `${folderPath(container, folder)}/trash`;

export const getTrash = (container: string, folder: string): Promise<TrashListResponse> =>
  apiRequest<TrashListResponse>(trashPath(container, folder));

/** Admins only (enabled): the server refuses everyone else. */
export const useTrash = (container: string, folder: string, enabled: boolean) =>
  useQuery({ queryKey: fileKeys.trash(container, folder), queryFn: () => getTrash(container, folder), enabled });

export const useRestoreTrashed = (container: string, folder: string) =>
  useInvalidatingMutation(
    (blob: string) =>
      apiRequest<RestoreTrashedResponse>(`${trashPath(container, folder)}/${seg(blob)}/restore`, { method: 'POST' }),
    [fileKeys.folder(container, folder), assignmentKeys.myStats()],
  );

export const usePurgeTrashed = (container: string, folder: string) =>
  useInvalidatingMutation(
    ({ blob, confirmation }: { blob: string; confirmation: string }) =>
      apiRequest<PurgeTrashedResponse>(`${trashPath(container, folder)}/${seg(blob)}`, {
        method: 'DELETE',
        body: { confirmation } satisfies PurgeTrashedRequest,
      }),
    [fileKeys.folder(container, folder)],
  );
