/** Query keys of user data; mutations invalidate the 'users' root. */
export const userKeys = {
  all: ['users'] as const,
  list: () => ['users', 'list'] as const,
  detail: (id: number) => ['users', 'detail', id] as const,
  dashboard: () => ['users', 'dashboard'] as const,
};
