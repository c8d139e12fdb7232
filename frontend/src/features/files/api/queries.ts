/** The folder page's first queries as options, shared by its hooks and by a first load's
 * prefetch (prefetch.ts): the same keys, fetchers and stale times. */
import { queryOptions } from '@tanstack/react-query';
import { ApiError, apiBlob, apiRequest } from '../../../lib/api/client';
import type { FileListResponse, PatientRead, StoredFile } from '../../../lib/api/types';
import { STALE } from '../../../lib/queryConfig';
import { fileKeys, patientKeys } from '../../../lib/queryKeys';
import { folderPath, patientPath } from './paths';

/** GET /api/blobs/{container}/{folder}: the folder's files sorted by name, and hasProfileImage. */
export const getFiles = (container: string, folder: string): Promise<FileListResponse> =>
  apiRequest<FileListResponse>(folderPath(container, folder));

export const filesQuery = (container: string, folder: string) =>
  queryOptions({
    queryKey: fileKeys.list(container, folder),
    queryFn: () => getFiles(container, folder),
    staleTime: STALE.files,
    meta: { awaitsLive: (data) => (data as FileListResponse).blobs.some(makingSomething) },
  });

/** Whether a file's thumbnail or text is still being made (a live event tells when it is). */
const makingSomething = (file: StoredFile): boolean => file.previewState === 'pending' || file.textState === 'pending';

/** GET /api/blobs/{container}/{folder}/profile-image as a Blob (an object URL shows it; CSP
 * allows blob:), or null when the folder has none (404). */
export async function getProfileImage(container: string, folder: string, signal?: AbortSignal): Promise<Blob | null> {
  try {
    return await apiBlob(`${folderPath(container, folder)}/profile-image`, { signal });
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return null;
    throw error;
  }
}

/** `version` is the image's lastModified: one version's image never changes (a live event or a
 * change still invalidates it), so it is fetched once. */
export const profileImageQuery = (container: string, folder: string, version: string) =>
  queryOptions({
    queryKey: fileKeys.profileImage(container, folder, version),
    queryFn: ({ signal }) => getProfileImage(container, folder, signal),
    staleTime: Infinity,
  });

/** GET /api/patients/{container}/{folder}: the folder's patient (the banner, the viewer's header). */
export const patientQuery = (container: string, folder: string) =>
  queryOptions({
    queryKey: patientKeys.folder(container, folder),
    queryFn: () => apiRequest<PatientRead>(patientPath(container, folder)),
    staleTime: STALE.files,
  });
