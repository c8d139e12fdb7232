/** GET /api/blobs/{container}/{folder}/profile-image as a Blob (an object URL shows it; CSP allows blob:). */
import { useQuery } from '@tanstack/react-query';
import { ApiError, apiBlob } from '../../../lib/api/client';
import { fileKeys } from '../../../lib/queryKeys';
import { folderPath } from './paths';

/** The image, or null when the folder has none (404). */
export async function getProfileImage(container: string, folder: string, signal?: AbortSignal): Promise<Blob | null> {
  try {
    return await apiBlob(`${folderPath(container, folder)}/profile-image`, { signal });
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return null;
    throw error;
  }
}

/** Fetched only when the listing says there is one; `version` is its lastModified. */
export const useProfileImage = (container: string, folder: string, version: string | null) =>
  useQuery({
    queryKey: fileKeys.profileImage(container, folder, version ?? ''),
    queryFn: ({ signal }) => getProfileImage(container, folder, signal),
    enabled: version !== null,
  });
