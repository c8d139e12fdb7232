/** Query keys of assignment, container and folder data. */
export const assignmentKeys = {
  all: ['assignments'] as const,
  user: (id: number) => ['assignments', 'user', id] as const,
  mine: () => ['assignments', 'mine'] as const,
  /** Under 'assignments': file uploads and deletions invalidate it with the rest. */
  myStats: () => ['assignments', 'mine', 'stats'] as const,
  containers: () => ['containers', 'all'] as const,
  folders: (container: string) => ['folders', container, 'all'] as const,
};
