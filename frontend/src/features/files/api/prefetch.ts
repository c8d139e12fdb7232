/** What a first load of the folder page fetches together with the page's code (app/routes.tsx
 * preloadScreens), into the same queries the page then reads: with ?view= (a search hit, a
 * reload) the viewer's code and its opening too, so the page shown first does not wait for the
 * folder page to render before they start. */
import type { QueryClient } from '@tanstack/react-query';
import type { FileListResponse, Role } from '../../../lib/api/types';
import { VIEWER } from '../components/viewer/lazyViewer';
import { filesQuery, patientQuery, profileImageQuery } from './queries';
import { PREFETCHED_VIEWER_MS, viewerQuery } from './viewer';

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
  const viewing = new URLSearchParams(window.location.search).get('view');
  if (viewing) {
    VIEWER.load().catch(() => undefined); // shown when it renders
    // The viewer's header names the patient: asked with the listing, so the header has its
    // final height when the viewer first paints (it grew by a line on a phone: CLS 0.16).
    void client.prefetchQuery(patientQuery(containerName, folderName));
  }
  client
    .fetchQuery(filesQuery(containerName, folderName))
    .then((listing) => {
      const version = profileVersion(listing);
      if (version !== null && UPLOADERS.includes(role)) {
        void client.prefetchQuery(profileImageQuery(containerName, folderName, version));
      }
      // The opening the viewer asks for (the same query: one audited view), kept until it mounts.
      const file = viewing ? listing.blobs.find((blob) => blob.name === viewing) : undefined;
      if (file && (file.displayable ?? true)) {
        void client.prefetchQuery({ ...viewerQuery(containerName, folderName, file.name, file.lastModified), gcTime: PREFETCHED_VIEWER_MS });
      }
    })
    .catch(() => undefined); // the page's own query shows a failure
}
