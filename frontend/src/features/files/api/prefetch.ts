/** What a first load of the folder page fetches together with the page's code (app/routes.tsx
 * preloadScreens), into the same queries the page then reads. */
import type { QueryClient } from '@tanstack/react-query';
import type { FileListResponse, Role } from '../../../lib/api/types';
import { filesQuery, profileImageQuery } from './queries';

/** The roles that upload and manage the profile image: the page shows them the profile card. */
export const UPLOADERS: readonly Role[] = ['admin', 'doctor', 'nurse'];

/** The profile image's version in a listing (its lastModified), or null when the folder has none. */
export function profileVersion(listing: FileListResponse | undefined): string | null {
  const profile = listing?.blobs.find((b) => b.isProfileImage);
  return profile ? profile.lastModified : listing?.hasProfileImage ? 'present' : null;
}

/** The listing and, for the roles shown it, the profile image as soon as the listing names one. */
export function prefetchFolder(client: QueryClient, params: Readonly<Partial<Record<string, string>>>, role: Role): void {
  const { containerName, folderName } = params;
  if (!containerName || !folderName) return;
  client
    .fetchQuery(filesQuery(containerName, folderName))
    .then((listing) => {
      const version = profileVersion(listing);
      if (version !== null && UPLOADERS.includes(role)) {
        void client.prefetchQuery(profileImageQuery(containerName, folderName, version));
      }
    })
    .catch(() => undefined); // the page's own query shows a failure
}
