/** The folder's files (GET /api/blobs/{container}/{folder}): queries.ts has the fetcher. */
import { useQuery } from '@tanstack/react-query';
import { filesQuery } from './queries';

export const useFiles = (container: string, folder: string) => useQuery(filesQuery(container, folder));
