/** Where a file's content came from, as its row and its versions say it (issue 51): a document
 * the intake filed says its source in the words of the ward ("From scanner", "From mail: sender",
 * "From intake upload", "Filed by cover sheet", and for mail "Filed by cover sheet, from mail:
 * sender"); a file uploaded to its folder says nothing. */
import type { FileSource, FileVersion } from '../../lib/api/types';
import { FILE_MSG } from './messages';

/** The source's words, or null for a file uploaded to its folder. */
export function sourceLabel(source: FileSource | null | undefined): string | null {
  if (!source) return null;
  // Who sent a mailed document matters more than how it was filed: its sender stays.
  if (source.coverSheet) return source.kind === 'mailbox' ? FILE_MSG.byCoverSheetFromMail(source.sender) : FILE_MSG.byCoverSheet;
  switch (source.kind) {
    case 'scanner':
      return FILE_MSG.fromScanner;
    case 'mailbox':
      return FILE_MSG.fromMail(source.sender);
    case 'upload':
      return FILE_MSG.fromIntakeUpload;
  }
}

/** Who put a version's content there: its uploader, the person who filed it from the intake, or
 * nobody to name when its cover sheet filed it (the source says so). */
export function addedBy(version: Pick<FileVersion, 'source' | 'uploadedBy'>): string | null {
  const { name, role } = version.uploadedBy;
  const who = `${name}${role ? ` (${role})` : ''}`;
  if (!version.source) return `Uploaded by ${who}`;
  return version.source.coverSheet ? null : `Filed by ${who}`;
}
