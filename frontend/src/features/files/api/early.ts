/** The folder page's first requests, which a first load of the page starts together with the
 * page's code (app/routes.tsx preloadScreens) instead of after it has arrived and rendered. */
import { requestEarly } from '../../../lib/api/client';
import type { FileListResponse, Role } from '../../../lib/api/types';
import { folderPath } from './paths';

/** The roles that upload and manage the profile image: the page shows them the profile card. */
export const UPLOADERS: readonly Role[] = ['admin', 'doctor', 'nurse'];

/** The profile image's version in a listing (its lastModified), or null when the folder has none. */
export function profileVersion(listing: FileListResponse | undefined): string | null {
  const profile = listing?.blobs.find((b) => b.isProfileImage);
  return profile ? profile.lastModified : listing?.hasProfileImage ? 'present' : null;
}

/** The listing and, for the roles shown it, the profile image as soon as the listing says there
 * is one (before the page's code has rendered the listing). */
export function requestFolderEarly(params: Readonly<Partial<Record<string, string>>>, role: Role): void {
  const { containerName, folderName } = params;
  if (!containerName || !folderName) return;
  const path = folderPath(containerName, folderName);
  const listing = requestEarly<FileListResponse>(path, 'json');
  if (!UPLOADERS.includes(role)) return;
  listing
    .then((answer) => {
      if (profileVersion(answer) !== null) requestEarly(`${path}/profile-image`, 'blob');
    })
    .catch(() => undefined);
}
