/** The folder's profile image (GET /api/blobs/{container}/{folder}/profile-image): queries.ts has the fetcher. */
import { useQuery } from '@tanstack/react-query';
import { profileImageQuery } from './queries';

/** Fetched only when the listing says there is one; `version` is its lastModified. */
export const useProfileImage = (container: string, folder: string, version: string | null) =>
  useQuery({ ...profileImageQuery(container, folder, version ?? ''), enabled: version !== null });
