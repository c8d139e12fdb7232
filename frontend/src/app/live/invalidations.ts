/** Which cached queries each live event makes stale: events are signals, queries refetch themselves. */
import type { InvalidateQueryFilters, QueryKey, RefetchQueryFilters } from '@tanstack/react-query';
import type { SearchResponse } from '../../lib/api/types';
import { assignmentKeys, auditKeys, fileKeys, intakeKeys, patientKeys, scanKeys, searchKeys, storageKeys, tokenKeys, userKeys } from '../../lib/queryKeys';
import { parsePatientChange, publishPatientChange } from '../../lib/liveSignals';
import { LiveEvent, type LiveEventName } from '../../lib/server.gen';

/** The fields the server's payloads may carry (bff/live/events.py); any may be missing or malformed. */
export interface LivePayload {
  container?: unknown;
  folder?: unknown;
  userId?: unknown;
  [field: string]: unknown;
}

/** Matches every cached query. */
const EVERYTHING: QueryKey = [];

const text = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);
const id = (value: unknown): number | null => (typeof value === 'number' && Number.isInteger(value) ? value : null);

function folderKeys(payload: LivePayload): QueryKey[] {
  const container = text(payload.container);
  const folder = text(payload.folder);
  // The folder's listing and profile image, and the file counts of My Assignments.
  return [container && folder ? fileKeys.folder(container, folder) : fileKeys.all, assignmentKeys.myStats()];
}

function patientChangeKeys(payload: LivePayload): QueryKey[] {
  const container = text(payload.container);
  const folder = text(payload.folder);
  // The banner of the folder page, and the lists that show the patient: folder tiles (and the
  // token dialog's folder list), My Assignments and the dashboard's patient search.
  return [container && folder ? patientKeys.folder(container, folder) : patientKeys.all, storageKeys.allFolders, assignmentKeys.myStats()];
}

function listingKey(payload: LivePayload): QueryKey {
  const container = text(payload.container);
  const folder = text(payload.folder);
  return container && folder ? fileKeys.list(container, folder) : fileKeys.all;
}

function assignmentChangeKeys(payload: LivePayload, me: number | null): QueryKey[] {
  const userId = id(payload.userId);
  const keys: QueryKey[] = [
    // The recipient's own view: my assignments (dashboard, container pages) and my stats.
    assignmentKeys.mine(),
    // Admin views: that user's assignments, the users list (/users and /assignments) and the dashboard.
    userId === null ? assignmentKeys.all : assignmentKeys.user(userId),
    userKeys.list(),
    userKeys.dashboard(),
  ];
  // A folder taken from me: an open folder page finds out at once (its refetch is refused).
  // ...and so does an open container page (its folder pages are under storage's folder lists).
  // The containers I may see (kept 5 minutes, e.g. the intake inbox's: which suggested folders
  // it reads the patient of) change with my assignments too.
  if (userId !== null && userId === me) keys.push(fileKeys.all, patientKeys.all, storageKeys.allFolders, storageKeys.containers);
  return keys;
}

/**
 * The query keys to invalidate for an event (me: the signed-in user's id); none for events that
 * are not about cached data.
 */
export function keysForEvent(event: LiveEventName, payload: LivePayload, me: number | null): QueryKey[] {
  switch (event) {
    case LiveEvent.FILE_UPLOADED:
    case LiveEvent.FILE_DELETED:
    case LiveEvent.FILE_RESTORED:
    case LiveEvent.VERSION_RESTORED:
    case LiveEvent.PROFILE_CHANGED:
      return folderKeys(payload);
    case LiveEvent.FILE_PREVIEW: // a thumbnail is ready: the listing now links to it
    case LiveEvent.FILE_INDEXED:
      // A file's text read for search, or not: its textState in the folder's listing. Nothing
      // else changed (no counts, no profile image): a backlog being read refetches no more.
      return [listingKey(payload)];
    case LiveEvent.PATIENT_CHANGED:
      return patientChangeKeys(payload);
    case LiveEvent.ASSIGNMENTS_CHANGED:
      return assignmentChangeKeys(payload, me);
    case LiveEvent.USERS_CHANGED:
      return [userKeys.all];
    case LiveEvent.TOKEN_REGISTERED:
    case LiveEvent.TOKEN_ASSIGNED:
    case LiveEvent.TOKEN_REASSIGNED:
    case LiveEvent.TOKEN_REVOKED:
    case LiveEvent.TOKEN_REACTIVATED:
    case LiveEvent.TOKEN_DELETED:
      // The token lists and every container's assigned-folder map.
      return [tokenKeys.all];
    case LiveEvent.AUDIT_CREATED:
      return [auditKeys.all];
    case LiveEvent.FILE_QUARANTINED:
      // The quarantine's pages and the dashboard's counts; a rescan's finding also leaves its
      // folder (its listing and counts).
      return [scanKeys.all, ...folderKeys(payload)];
    case LiveEvent.INTAKE_RECEIVED:
    case LiveEvent.INTAKE_FILED:
    case LiveEvent.INTAKE_DELETED:
    case LiveEvent.INTAKE_CHANGED:
      // An item arrived, was routed or turned, or left the inbox (filed, deleted, split) by
      // another hand: the inbox's pages (a turned item's thumbnail link names its new content).
      // A filed item's folder hears its own file:uploaded.
      return [intakeKeys.all];
    case LiveEvent.LIVE_RESYNC:
      // The server's link to the other instances was down: any of their events may be lost.
      return [EVERYTHING];
    case LiveEvent.EMERGENCY_OPENED:
      // A SUN tap moved its token's last tap counter and time.
      return [tokenKeys.all];
    // LIVE_RECONNECT: the server is stopping; the connection closes and the client reconnects
    // with its backoff, refetching what is on screen when it is back.
    case LiveEvent.EMERGENCY_REFUSED:
    case LiveEvent.SESSION_REVOKED:
    case LiveEvent.LIVE_RECONNECT:
      return [];
  }
}

/**
 * The search pages whose hits name the changed patient (each hit carries its folder's identity):
 * marked stale, then searched again together at most once every SEARCH_REFETCH_MS (an import
 * changes a patient a row, each its event), so a corrected name, date of birth or record number
 * shows. Only those: each search is audited and counted against the reader's searches per
 * minute. A page without an answer (still asked, or refused) is left as it is.
 */
function searchesShowing(payload: LivePayload): InvalidateQueryFilters {
  const container = text(payload.container);
  const folder = text(payload.folder);
  return {
    queryKey: searchKeys.all,
    refetchType: 'none',
    predicate: ({ state }) => {
      const data = state.data as SearchResponse | undefined;
      if (!container || !folder || !data) return false;
      return data.results.some((hit) => hit.containerName === container && hit.folderName === folder);
    },
  };
}

/** How often search pages a patient's change marked stale are searched again, at most. */
export const SEARCH_REFETCH_MS = 2000;

/** The search pages on screen that a patient's change marked stale (searchesShowing). */
export const staleSearches: RefetchQueryFilters = {
  queryKey: searchKeys.all,
  type: 'active',
  predicate: ({ state }) => state.isInvalidated && state.status === 'success', // a refused one stays refused
};

/** What to invalidate for an event: its keys (keysForEvent), and for a patient's change the
 * search pages that show the patient. */
export function invalidationsForEvent(event: LiveEventName, payload: LivePayload, me: number | null): InvalidateQueryFilters[] {
  const filters: InvalidateQueryFilters[] = keysForEvent(event, payload, me).map((queryKey) => ({ queryKey }));
  return event === LiveEvent.PATIENT_CHANGED ? [...filters, searchesShowing(payload)] : filters;
}

/** Every event that only invalidates queries (the others have their own handlers). */
export const CACHE_EVENTS: readonly LiveEventName[] = Object.values(LiveEvent).filter(
  (event) =>
    event !== LiveEvent.EMERGENCY_OPENED &&
    event !== LiveEvent.EMERGENCY_REFUSED &&
    event !== LiveEvent.FILE_QUARANTINED &&
    event !== LiveEvent.SESSION_REVOKED &&
    event !== LiveEvent.LIVE_RECONNECT,
);

/** What an event tells a screen besides its refetch: a patient's change reaches the folder page's
 * notice (lib/liveSignals.ts). */
export function signalEvent(event: LiveEventName, payload: LivePayload): void {
  if (event !== LiveEvent.PATIENT_CHANGED) return;
  const change = parsePatientChange(payload);
  if (change) publishPatientChange(change);
}
