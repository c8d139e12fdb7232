/** Cache lifetimes of spec section 9, used as TanStack Query stale times. */
const MINUTE = 60_000;
export const STALE = {
  assignments: 5 * MINUTE,
  users: 5 * MINUTE,
  containers: 5 * MINUTE,
  folders: 5 * MINUTE,
  auditLogs: 2 * MINUTE,
} as const;
