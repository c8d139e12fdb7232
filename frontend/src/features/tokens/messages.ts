/** The SmartToken screen's messages, worded as in spec sections 5 and 8 where it names them. */
export const TOKEN_MSG = {
  loadFailed: 'Failed to load tokens',
  required: 'Please fill in all required fields',
  assigned: 'Token assigned successfully',
  reassigned: 'Token reassigned successfully',
  revokeReason: 'Please provide a reason for revocation',
  revokeFailed: 'Failed to revoke token',
  revoked: 'Token remotely disconnected successfully',
  reactivateFailed: 'Failed to reactivate token',
  reactivated: 'Token reactivated successfully',
  deleteReason: 'Please provide a reason for deletion',
  deleteConfirm: "Please type 'DELETE' to confirm permanent deletion",
  deleteFailed: 'Failed to delete token',
  deleted: 'Token permanently deleted successfully',
  // Not named by the spec: the registration dialog's own wording.
  chipRequired: 'Please enter the secure chip ID',
  registerFailed: 'Failed to register token',
  registered: 'Token registered successfully',
  urlOnce: 'This verification URL is shown only once. Write it to the device (or print the QR code) before closing.',
  copied: 'Verification URL copied',
  uidFormat: 'The tag UID is 14 hexadecimal characters (7 bytes)',
  keyFormat: 'The file-read key is 32 hexadecimal characters (or leave it empty)',
  keyOnce:
    'The generated file-read key is shown only once. Write the URL template, offsets and key to the tag (or keep them safely) before closing.',
  templateOnce: 'Write the URL template and offsets to the tag with its SDM file-read key before closing.',
  copyFailed: 'Could not copy: select the address and copy it by hand.',
  empty: {
    unclaimed: 'No unclaimed tokens. Register a device to add one.',
    assigned: 'No tokens have been assigned to patients yet.',
  },
} as const;
