/** Malware scanning's words (issue 49): the dashboard's notice, the quarantine page, the live alert. */
export const SCAN_MSG = {
  // The admin dashboard
  heading: 'Malware scanning',
  loadFailed: 'Failed to load the malware scanner status',
  notConfigured: 'Files are not scanned for malware',
  notConfiguredHelp: 'Your IT team can configure a ClamAV scanner (BFF_CLAMD) so that every new file is scanned before anyone sees it.',
  available: 'The virus scanner is answering: every new file is scanned before it is saved.',
  unavailable: (hold: boolean) =>
    hold
      ? 'The virus scanner is not answering: new files are held, visible only to admins, until it answers.'
      : 'The virus scanner is not answering: new files are refused until it answers.',
  unknown: 'The virus scanner has not been reached yet.',
  quarantined: 'Quarantined',
  held: 'Waiting for scan',
  toQuarantine: 'Open the quarantine',
  // The quarantine page
  title: 'Quarantine',
  intro:
    'Files the virus scanner refused, or found on a rescan. They are kept here, unreadable through the portal, until an admin deletes them.',
  loading: 'Loading quarantined files…',
  quarantineFailed: 'Failed to load quarantined files',
  empty: 'No files are in quarantine.',
  reasonUpload: 'Refused on upload',
  reasonRescan: 'Found on a rescan',
  notKept: 'its bytes could not be kept',
  // Deleting
  deleteTitle: 'Delete quarantined file',
  deleteConfirm: 'Delete',
  deleteBusy: 'Deleting…',
  deleteFailed: 'Failed to delete the quarantined file',
  deleted: (name: string) => `${name} deleted from the quarantine`,
  // The live alert to admins
  alert: (signature: string, folder: string) => `A file was quarantined: ${signature} in ${folder}`,
} as const;
