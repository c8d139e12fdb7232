/**
 * Opening a file in a new tab through the server's short-lived signed link. The window opens
 * synchronously in the click (so popup blockers allow it), then goes to the link once known.
 * iOS Safari navigates this tab instead. The session token never appears in a URL. A file the
 * server sends only as a download (an image over the browser's pixel budget) is downloaded
 * through the same link, with no tab.
 */
import { useCallback, useMemo } from 'react';
import { useNotify } from '../../components/Notifications';
import { serverUrl } from '../../lib/api/client';
import { isIosSafari } from '../../lib/device';
import { getToken } from '../../lib/session';
import { trackViewerWindow } from '../../lib/viewerWindows';
import { getViewLink } from './api/get-view-link';
import { getVersionLink } from './api/versions';
import { FILE_MSG, openErrorMessage } from './messages';

/** The 'opened' message clears after 3 s, a file-open error after 7 s (spec sections 4 and 9). */
export const OPENED_MS = 3000;
export const OPEN_ERROR_MS = 7000;

/** How to open a file: an earlier version of it (versionId), or a PDF at a page (page: the
 * viewer's #page=N, where the browser's PDF viewer takes it). */
export interface OpenOptions {
  versionId?: string;
  page?: number | null;
}

/** The view link with the page a PDF viewer should show first. */
export function withPage(url: string, page: number | null | undefined): string {
  return page && Number.isInteger(page) && page > 0 ? `${url}#page=${page}` : url;
}

/** Opening any file the reader may read (the search results name files of many folders). */
export function useFileOpener() {
  const notify = useNotify();
  const ios = useMemo(() => isIosSafari(), []);

  const openFile = useCallback(
    (container: string, folder: string, blob: string, { versionId, page }: OpenOptions = {}) => {
      if (!getToken()) {
        notify('error', FILE_MSG.noToken, OPEN_ERROR_MS);
        return;
      }
      let viewer: Window | null = null;
      if (!ios) {
        viewer = window.open('', '_blank');
        if (!viewer) {
          notify('error', FILE_MSG.popupBlocked, OPEN_ERROR_MS);
          return;
        }
        // The viewer keeps its opener: Chromium lets a script close only a window whose opener
        // it did not cut. The viewer cannot use it: the file is served with a CSP that allows no
        // script (and a sandbox where the browser supports it).
        trackViewerWindow(viewer);
      }
      const link = versionId ? getVersionLink(container, folder, blob, versionId) : getViewLink(container, folder, blob);
      link.then(
        ({ url }) => {
          const target = withPage(serverUrl(url), page);
          if (viewer) {
            viewer.location.href = target;
            notify('success', FILE_MSG.opened, OPENED_MS);
          } else {
            notify('info', FILE_MSG.openingIos, OPENED_MS);
            window.location.assign(target);
          }
        },
        (error: unknown) => {
          try {
            viewer?.close();
          } catch {
            // already closed
          }
          notify('error', openErrorMessage(error, ios), OPEN_ERROR_MS);
        },
      );
    },
    [ios, notify],
  );

  /** The file saved to the device by its signed link (the server answers it as an attachment). */
  const downloadFile = useCallback(
    (container: string, folder: string, blob: string) => {
      if (!getToken()) {
        notify('error', FILE_MSG.noToken, OPEN_ERROR_MS);
        return;
      }
      getViewLink(container, folder, blob).then(
        ({ url }) => {
          const link = document.createElement('a');
          link.href = serverUrl(url);
          link.download = blob;
          link.rel = 'noopener';
          document.body.appendChild(link);
          link.click();
          link.remove();
          notify('success', FILE_MSG.downloading, OPENED_MS);
        },
        (error: unknown) => notify('error', openErrorMessage(error, ios), OPEN_ERROR_MS),
      );
    },
    [ios, notify],
  );

  return { openFile, downloadFile, ios };
}

/** Opening a file of one folder, or an earlier version of it (versionId): the same signed-link way. */
export function useOpenFile(container: string, folder: string) {
  const { openFile, downloadFile, ios } = useFileOpener();
  const open = useCallback(
    (blob: string, versionId?: string) => openFile(container, folder, blob, { versionId }),
    [openFile, container, folder],
  );
  const download = useCallback((blob: string) => downloadFile(container, folder, blob), [downloadFile, container, folder]);
  return { open, download, ios };
}
