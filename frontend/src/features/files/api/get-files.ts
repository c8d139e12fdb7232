/** GET /api/blobs/{container}/{folder}: the folder's files sorted by name, and hasProfileImage. */
import { useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api/client';
import type { FileListResponse } from '../../../lib/api/types';
import { fileKeys } from '../../../lib/queryKeys';
import { folderPath } from './paths';

export const getFiles = (container: string, folder: string): Promise<FileListResponse> =>
  apiRequest<FileListResponse>(folderPath(container, folder));

export const useFiles = (container: string, folder: string) =>
  useQuery({ queryKey: fileKeys.list(container, folder), queryFn: () => getFiles(container, folder) });
