/** Query keys of SmartToken data; every token mutation invalidates the 'smart-tokens' root. */
export const tokenKeys = {
  all: ['smart-tokens'] as const,
  unclaimed: () => ['smart-tokens', 'unclaimed'] as const,
  assigned: () => ['smart-tokens', 'assigned'] as const,
  assignedFolders: (container: string) => ['smart-tokens', 'assigned-folders', container] as const,
};
