/** The folder page's messages, worded as in spec section 8. */
import { ApiError } from '../../lib/api/client';
import type { UploadResponse } from '../../lib/api/types';

export const FILE_MSG = {
  loading: 'Loading files…',
  loadFailed: 'Failed to load data',
  // A folder that is not there for this user (404), worded like the container page's.
  notAssigned: 'Folder not found or not assigned to you',
  notFound: 'Folder not found',
  // The folder's cover sheet (issue 51): scanned first, it files the document to this folder.
  coverSheet: 'Print cover sheet',
  coverSheetBusy: 'Preparing cover sheet…',
  coverSheetFailed: 'Failed to download the cover sheet',
  empty: 'No files found in this folder.',
  // Upload
  noFile: 'Please select a file to upload',
  uploaded: 'File uploaded successfully',
  rtfConverted: (name: string) => `RTF file converted and saved as ${name}`,
  serverRejected: 'Server rejected the file upload',
  noResponse: 'No response from server. Please check your connection.',
  uploadFailed: 'Failed to upload file. Please try again.',
  // Profile image
  profileUploaded: 'Profile image uploaded successfully',
  profileSaved: (name: string) => `Profile image processed and saved as ${name}`,
  profileFailed: 'Failed to upload profile image',
  // Delete
  deleted: 'File deleted successfully',
  deleteFailed: 'Failed to delete file',
  toTrash: (days: number) =>
    `It goes to this folder's trash for ${days} ${days === 1 ? 'day' : 'days'}, where an admin can restore it; then it is deleted for good.`,
  // Versions and the trash
  versionsFailed: 'Failed to load the versions',
  versionRestored: 'Version restored successfully',
  restoreFailed: 'Failed to restore',
  keptAsVersion: 'The current content is kept as a version.',
  trashEmpty: 'The trash of this folder is empty.',
  trashRestored: 'File restored successfully',
  purged: 'File deleted permanently',
  purgeFailed: 'Failed to delete the file permanently',
  purgeConfirm: 'Please type DELETE to confirm.',
  // Viewing
  noToken: 'No authentication token found. Please log in again.',
  sessionExpired: 'Your session has expired. Please log in again.',
  forbidden: "You don't have permission to view this file.",
  popupBlocked: 'Popup blocked by browser. Please allow popups for this site and try again.',
  iosFailed: "Unable to open file. This may be due to Safari's security restrictions.",
  openFailed: 'Failed to open file',
  opened: 'File opened in new tab',
  downloading: 'Download started',
  openingIos: 'Opening file... You may need to use the back button to return.',
  // Search: whether a file's text could be read (issue 32)
  notSearchable: (problem: string | null | undefined) => (problem ? `Not searchable: ${problem}` : 'Not searchable'),
  indexing: 'Indexing…',
  searchFolder: 'Search in this folder',
  iosNotice: 'On iPhone and iPad, files open in this tab. Tap to Open a file, then use the back button to return.',
  // What the content checks and the virus scanner found (issue 49)
  activeContent: (what: string) => `Active content: ${what}`,
  notDisplayable: 'Cannot be displayed',
  heldForScan: 'Waiting for virus scan',
  download: 'Download',
  // Where a document the intake filed came from (issue 51)
  fromScanner: 'From scanner',
  fromMail: (sender: string | null) => (sender ? `From mail: ${sender}` : 'From mail'),
  fromIntakeUpload: 'From intake upload',
  byCoverSheet: 'Filed by cover sheet',
  byCoverSheetFromMail: (sender: string | null) => (sender ? `Filed by cover sheet, from mail: ${sender}` : 'Filed by cover sheet, from mail'),
} as const;

/** The success message of a file upload: RTF conversions name the text file they became. */
export function uploadSuccessMessage(result: UploadResponse): string {
  const conversion = result.rtfConversion;
  if (conversion.converted && conversion.txtFileName) return FILE_MSG.rtfConverted(conversion.txtFileName);
  return FILE_MSG.uploaded;
}

/** The server answered: its message or a fallback; no answer; or the request never started. */
export function uploadErrorMessage(error: unknown): string {
  if (error instanceof ApiError) {
    if (error.status === 0) return FILE_MSG.noResponse;
    return error.serverMessage ?? FILE_MSG.serverRejected;
  }
  return FILE_MSG.uploadFailed;
}

/** The success message of a profile image upload. */
export function profileSuccessMessage(result: UploadResponse): string {
  const name = result.profileImageProcessing.standardName;
  return name ? FILE_MSG.profileSaved(name) : FILE_MSG.profileUploaded;
}

/** Why a file could not be opened (spec section 8, file viewing). */
export function openErrorMessage(error: unknown, iosSafari: boolean): string {
  if (error instanceof ApiError) {
    if (error.status === 401 || /session|expired/i.test(error.serverMessage ?? '')) return FILE_MSG.sessionExpired;
    if (error.status === 403) return FILE_MSG.forbidden;
  }
  return iosSafari ? FILE_MSG.iosFailed : FILE_MSG.openFailed;
}

/** The in-app viewer's words (issue 33); opening the original keeps FILE_MSG's. */
export const VIEWER_MSG = {
  loading: 'Loading file…',
  openOriginal: 'Open original',
  downloadOriginal: 'Download original',
  notShown: 'This type of file cannot be shown here. Open the original to see it.',
  openIt: 'Open the original to see it.',
  imageFailed: 'The image could not be shown. Open the original to see it.',
  imageReduced:
    'This image is too large to show at full size here, so a smaller copy is shown. Download the original to see every detail on your device.',
  // An image over the pixels a browser is given to decode: the server sends its original only as a download.
  downloadIt: 'Its original is too large to open in the browser: Download original saves it to your device.',
  pageFailed: 'This page could not be shown. Open the original to see it.',
  textCut: 'Only the beginning of this text is shown here. Open the original to see all of it.',
  filePosition: (n: number, total: number) => `File ${n} of ${total}`,
  pagePosition: (n: number, total: number) => `Page ${n} of ${total}`,
  previousFile: (name: string) => `Previous file: ${name}`,
  nextFile: (name: string) => `Next file: ${name}`,
  imageRegion: (name: string) => `Image: ${name}`,
  textRegion: (name: string) => `Text of ${name}`,
  // Issue 49: what the content checks found
  activeContent: (what: string) =>
    `This PDF contains active content (${what}). It is shown here as pictures of its pages, where none of it runs; be careful opening the original.`,
  notDisplayable: 'This file cannot be displayed: it is damaged or not what its name says. Download the original to see it on your device.',
} as const;

/** Why the viewer could not show a file: the file-viewing wording of spec section 8 for a missing
 * session and a refusal, otherwise the server's own message (a file not found, a damaged PDF), or
 * that it could not be reached. */
export function viewerErrorMessage(error: unknown, iosSafari: boolean): string {
  if (error instanceof ApiError) {
    if (error.status === 401 || error.status === 403) return openErrorMessage(error, iosSafari);
    if (error.status === 0) return FILE_MSG.noResponse;
    if (error.serverMessage) return error.serverMessage;
  }
  return FILE_MSG.openFailed;
}
