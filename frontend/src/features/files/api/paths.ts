/** API paths of a folder's files, each segment encoded. */
import { seg } from '../../../lib/api/client';

/** /blobs/{container}/{folder}. */
export const folderPath = (container: string, folder: string): string => `/blobs/${seg(container)}/${seg(folder)}`;

/** /blobs/{container}/{folder}/{blob}. */
export const filePath = (container: string, folder: string, blob: string): string =>
  `${folderPath(container, folder)}/${seg(blob)}`;

/** /patients/{container}/{folder}: the folder's patient. */
export const patientPath = (container: string, folder: string): string => `/patients/${seg(container)}/${seg(folder)}`;
