/**
 * A file's versions: GET .../{blob}/versions, a signed link to one (GET .../versions/{id}/url),
 * and POST .../versions/{id}/restore (admin, doctor, nurse).
 */
import { useQuery } from '@tanstack/react-query';
import { apiRequest, seg } from '../../../lib/api/client';
import type { RestoreVersionResponse, VersionListResponse, ViewLinkResponse } from '../../../lib/api/types';
import { assignmentKeys, fileKeys } from '../../../lib/queryKeys';
import { useInvalidatingMutation } from '../../../lib/useInvalidatingMutation';
import { filePath } from './paths';

const versionsPath = (container: string, folder: string, blob: string): string =>
  `${filePath(container, folder, blob)}/versions`;

export const getVersions = (container: string, folder: string, blob: string): Promise<VersionListResponse> =>
  apiRequest<VersionListResponse>(versionsPath(container, folder, blob));

export const useVersions = (container: string, folder: string, blob: string) =>
  useQuery({ queryKey: fileKeys.versions(container, folder, blob), queryFn: () => getVersions(container, folder, blob) });

/** Not a query: each click asks for a fresh link, like the current file's. */
export const getVersionLink = (container: string, folder: string, blob: string, versionId: string): Promise<ViewLinkResponse> =>
  apiRequest<ViewLinkResponse>(`${versionsPath(container, folder, blob)}/${seg(versionId)}/url`);

export const restoreVersion = (container: string, folder: string, blob: string, versionId: string): Promise<RestoreVersionResponse> =>
  apiRequest<RestoreVersionResponse>(`${versionsPath(container, folder, blob)}/${seg(versionId)}/restore`, { method: 'POST' });

export const useRestoreVersion = (container: string, folder: string, blob: string) =>
  useInvalidatingMutation((versionId: string) => restoreVersion(container, folder, blob, versionId), [
    fileKeys.folder(container, folder),
    assignmentKeys.myStats(),
  ]);
