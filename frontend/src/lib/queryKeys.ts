/**
 * Every query key of the web app. They are shared vocabulary: a mutation in one feature marks
 * another feature's data stale (an upload changes my file counts) and the live events mark
 * everything stale, without importing each other. Mutations invalidate a root; queries sit below it.
 */
import type { AuditQuery, AccessReportQuery } from './api/types';
import type { SearchQuery } from './searchQuery';

export const userKeys = {
  all: ['users'] as const,
  list: () => ['users', 'list'] as const,
  detail: (id: number) => ['users', 'detail', id] as const,
  /** A user's single sign-on (GET /api/users/{id}/sso): under `users`, so a user's change refreshes it. */
  sso: (id: number) => ['users', 'sso', id] as const,
  dashboard: () => ['users', 'dashboard'] as const,
};

export const assignmentKeys = {
  all: ['assignments'] as const,
  user: (id: number) => ['assignments', 'user', id] as const,
  mine: () => ['assignments', 'mine'] as const,
  /** Under 'assignments': file uploads and deletions invalidate it with the rest. */
  myStats: () => ['assignments', 'mine', 'stats'] as const,
  /** Under myStats: one page of my folders with their file counts (My Assignments, the dashboard's search). */
  myFolders: (q: string, page: number) => ['assignments', 'mine', 'stats', 'folders', q, page] as const,
};

/** Containers and folders: the full lists that pickers search, and the server-paged storage screens. */
export const storageKeys = {
  containers: ['containers'] as const,
  containerList: () => ['containers', 'all'] as const,
  containerPage: (q: string, page: number) => ['containers', 'page', q, page] as const,
  /** Every folder list: the caller's assignments changed, so what each container shows may have. */
  allFolders: ['folders'] as const,
  folders: (container: string) => ['folders', container] as const,
  folderList: (container: string) => ['folders', container, 'all'] as const,
  folderPage: (container: string, q: string, page: number) => ['folders', container, 'page', q, page] as const,
};

export const fileKeys = {
  all: ['files'] as const,
  folder: (container: string, folder: string) => ['files', container, folder] as const,
  list: (container: string, folder: string) => ['files', container, folder, 'list'] as const,
  /** Keyed by the image's modification time too, so a replaced image is fetched afresh. */
  profileImage: (container: string, folder: string, version: string) =>
    ['files', container, folder, 'profile-image', version] as const,
  /** Under the folder: every change of its files (and their live events) refreshes them too. */
  versions: (container: string, folder: string, blob: string) => ['files', container, folder, 'versions', blob] as const,
  trash: (container: string, folder: string) => ['files', container, folder, 'trash'] as const,
};

/** A folder's patient (name, date of birth, record number): its own root, so a file's change
 * does not refetch it (each read is audited). */
export const patientKeys = {
  all: ['patients'] as const,
  folder: (container: string, folder: string) => ['patients', container, folder] as const,
};

/**
 * The in-app viewer's answers, outside fileKeys on purpose: each is one audited view with links of
 * its own, so a change elsewhere in the folder (a live event) must not fetch it again; a new
 * version of the file has a key of its own (`version`: its lastModified).
 */
export const viewerKeys = {
  all: ['viewer'] as const,
  file: (container: string, folder: string, blob: string, version: string) =>
    ['viewer', container, folder, blob, version] as const,
  text: (url: string) => ['viewer', 'text', url] as const,
};

/** Every token mutation invalidates the 'smart-tokens' root: the lists and the assigned-folder maps. */
export const tokenKeys = {
  all: ['smart-tokens'] as const,
  unclaimed: () => ['smart-tokens', 'unclaimed'] as const,
  assigned: () => ['smart-tokens', 'assigned'] as const,
  assignedFolders: (container: string) => ['smart-tokens', 'assigned-folders', container] as const,
};

export const auditKeys = {
  /** The root of every audit log page: new entries invalidate it. */
  all: ['audit-logs'] as const,
  page: (query: AuditQuery) => ['audit-logs', query] as const,
};

/** Outside auditKeys.all on purpose: a report is itself audited, so refetching it on every new
 * entry would never stop. */
export const auditReportKeys = {
  status: ['audit-status'] as const,
  report: (query: AccessReportQuery) => ['audit-report', query] as const,
};

export const emergencyKeys = {
  session: ['emergency', 'session'] as const,
  status: ['emergency', 'status'] as const,
};

/** Single sign-on as the login page shows it (GET /api/auth/oidc/config, public). */
export const ssoKeys = {
  config: ['sso', 'config'] as const,
};

/** The signed-in user's own second factors (GET /api/auth/mfa). */
export const mfaKeys = {
  all: ['mfa'] as const,
  status: () => ['mfa', 'status'] as const,
};

/** Full-text search: one page of results per search and cursor. Outside fileKeys on purpose:
 * every search is audited, so a file event elsewhere does not run the open search again. */
export const searchKeys = {
  all: ['search'] as const,
  page: (query: SearchQuery, cursor: string | null) => ['search', query, cursor] as const,
};

/** Malware scanning (issue 49): the scanner's state (the admin dashboard) and the quarantine's
 * pages, under one root that a quarantine event and a deletion mark stale. */
export const scanKeys = {
  all: ['scanning'] as const,
  status: () => ['scanning', 'status'] as const,
  quarantine: (page: number) => ['scanning', 'quarantine', page] as const,
};

/** The intake (issue 51): the inbox's pages, under one root that the intake's live events and
 * every intake action mark stale (an item's thumbnail is an <img> by the link its page gives:
 * new content, a new link). */
export const intakeKeys = {
  all: ['intake'] as const,
  list: (status: string, page: number) => ['intake', 'list', status, page] as const,
};
