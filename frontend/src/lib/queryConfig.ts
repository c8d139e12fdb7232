/** Cache lifetimes of spec section 9 (and the files listing's), used as TanStack Query stale times. */
const MINUTE = 60_000;
export const STALE = {
  assignments: 5 * MINUTE,
  users: 5 * MINUTE,
  containers: 5 * MINUTE,
  folders: 5 * MINUTE,
  auditLogs: 2 * MINUTE,
  /**
   * A folder's files are not among the spec's cached lists: they are fetched whenever the folder
   * page opens, except within 30 seconds of the last fetch, so that the listing a first load
   * fetched while the page's code was still arriving (app/routes.tsx preloadScreens), on however
   * slow a connection, is not asked for again when the page mounts. Changes (mutations, live
   * events) invalidate it at any age.
   */
  files: 30_000,
} as const;
