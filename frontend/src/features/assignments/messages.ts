/** The Manage Assignments screen's messages, worded as in spec sections 2 and 8. */
export const ASSIGN_MSG = {
  loadAssignmentsFailed: 'Failed to load assignments',
  loadFoldersFailed: (c: string) => `Failed to load folders for ${c}`,
  selectContainer: 'Please select a container',
  allAssigned: 'All available folders have already been assigned to this user.',
  noFolders: 'No folders available in this container.',
  noMatch: 'No folders match your search.',
  noContainers: 'No containers available.',
  noAssignments: 'No containers or folders are assigned to this user yet.',
  assigned: 'Resources assigned successfully',
  assignedMore: 'Additional folders assigned successfully',
  assignFailed: 'Failed to assign resources',
  unassignFailed: 'Failed to unassign resource',
  containerUnassigned: 'Container unassigned successfully',
  folderUnassigned: 'Folder unassigned successfully',
  // Spec section 2, /users/assign: shown where the admin picks folders.
  transferWarning: 'Warning: an existing folder assignment is transferred to the new token.',
} as const;
