/** GET /api/blobs/{container}/{folder}/{blob}/url: a short-lived signed link that opens one file. */
import { apiRequest } from '../../../lib/api/client';
import type { ViewLinkResponse } from '../../../lib/api/types';
import { filePath } from './paths';

/** Not a query: each click asks for a fresh link (they expire within minutes). */
export const getViewLink = (container: string, folder: string, blob: string): Promise<ViewLinkResponse> =>
  apiRequest<ViewLinkResponse>(`${filePath(container, folder, blob)}/url`);
