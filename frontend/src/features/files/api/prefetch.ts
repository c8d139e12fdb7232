/** What a first load of the folder page fetches together with the page's code (app/routes.tsx
 * preloadScreens), into the same queries the page then reads: with ?view= (a search hit, a
 * reload) the viewer's code and its opening too, so the page shown first does not wait for the
 * folder page to render before they start. */
import type { QueryClient } from '@tanstack/react-query';
import { serverUrl } from '../../../lib/api/client';
import type { FileListResponse, Role, ViewerResponse } from '../../../lib/api/types';
import { VIEWER } from '../components/viewer/lazyViewer';
import { pageLink, pageWidthFor, requestedPage } from '../components/viewer/viewerRules';
import { filesQuery, patientQuery, profileImageQuery } from './queries';
import { PREFETCHED_VIEWER_MS, viewerQuery } from './viewer';

/** The roles that upload and manage the profile image: the page shows them the profile card. */
export const UPLOADERS: readonly Role[] = ['admin', 'doctor', 'nurse'];

/** The profile image's version in a listing (its lastModified), or null when the folder has none. */
export function profileVersion(listing: FileListResponse | undefined): string | null {
  const profile = listing?.blobs.find((b) => b.isProfileImage);
  return profile ? profile.lastModified : listing?.hasProfileImage ? 'present' : null;
}

/** A phone's screen (styles/screens.css: the viewer's page is the screen's width there). */
const PHONE = '(max-width: 640px)';

/**
 * On a phone, the picture of the page the viewer opens at, asked for as soon as the opening
 * answers: its width is the screen's there, so its link is known before the folder page and the
 * viewer have rendered, and the viewer's <img> (PdfView) finds it in the browser's image cache.
 * The viewer's largest paint (issue 50) no longer waits for that rendering. Elsewhere the page's
 * width is the viewer's layout's, known only once it is laid out.
 */
export function preloadPage(answer: ViewerResponse, page: number): void {
  if (answer.kind !== 'pdf' || !answer.pageUrl || !window.matchMedia?.(PHONE).matches) return;
  const width = pageWidthFor(window.innerWidth, window.devicePixelRatio || 1, answer.pageWidths);
  const link = document.createElement('link');
  link.rel = 'preload';
  link.setAttribute('as', 'image');
  link.setAttribute('fetchpriority', 'high');
  link.href = serverUrl(pageLink(answer.pageUrl, Math.min(page, Math.max(1, answer.pageCount ?? 1)), width));
  document.head.append(link);
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
        const opening = viewerQuery(containerName, folderName, file.name, file.lastModified);
        void client.prefetchQuery({ ...opening, gcTime: PREFETCHED_VIEWER_MS }).then(() => {
          const answer = client.getQueryData(opening.queryKey);
          if (answer) preloadPage(answer, requestedPage(new URLSearchParams(window.location.search).get('page')));
        });
      }
    })
    .catch(() => undefined); // the page's own query shows a failure
}
