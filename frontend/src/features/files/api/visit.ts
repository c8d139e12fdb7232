/** POST /api/blobs/{container}/{folder}/visit (issue 50): records the reader's visit to the folder
 * now and answers when the visit before it ended, so the folder page can mark the files added
 * since. The server keeps one visit going across requests within 30 minutes of each other, so a
 * reload (or coming back a few minutes later) gets the same answer and keeps the marks. */
import { useMutation } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { apiRequest } from '../../../lib/api/client';
import type { VisitResponse } from '../../../lib/api/types';
import { folderPath } from './paths';

export const postVisit = (container: string, folder: string): Promise<VisitResponse> =>
  apiRequest<VisitResponse>(`${folderPath(container, folder)}/visit`, { method: 'POST' });

/**
 * The reader's previous visit (ISO 8601), recorded once as the page opens: undefined until the
 * server answers, null on a first visit or when it could not say (no file is marked then). A
 * mutation, not a query: a refetch (a live resync) would record another visit and lose the marks.
 */
export function usePreviousVisit(container: string, folder: string): string | null | undefined {
  const visit = useMutation({ mutationFn: () => postVisit(container, folder) });
  const sent = useRef(false);
  const { mutate } = visit;
  useEffect(() => {
    if (sent.current) return;
    sent.current = true;
    mutate();
  }, [mutate]);
  if (visit.isError) return null;
  return visit.data ? visit.data.previousVisitAt : undefined;
}

/** Whether a file was added or changed after the previous visit. */
export function isNewSince(lastModified: string, previousVisitAt: string | null | undefined): boolean {
  if (!previousVisitAt) return false;
  const since = Date.parse(previousVisitAt);
  const at = Date.parse(lastModified);
  return !Number.isNaN(since) && !Number.isNaN(at) && at > since;
}
