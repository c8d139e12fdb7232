/** Query keys and API paths of a folder's files and its profile image. */
import { seg } from '../../../lib/api/client';

export const fileKeys = {
  all: ['files'] as const,
  folder: (container: string, folder: string) => ['files', container, folder] as const,
  list: (container: string, folder: string) => ['files', container, folder, 'list'] as const,
  /** Keyed by the image's modification time too, so a replaced image is fetched afresh. */
  profileImage: (container: string, folder: string, version: string) =>
    ['files', container, folder, 'profile-image', version] as const,
};


/** /blobs/{container}/{folder}, each segment encoded. */
export const folderPath = (container: string, folder: string): string => `/blobs/${seg(container)}/${seg(folder)}`;

/** /blobs/{container}/{folder}/{blob}, each segment encoded. */
export const filePath = (container: string, folder: string, blob: string): string =>
  `${folderPath(container, folder)}/${seg(blob)}`;
