/** Audit operations in words, for people; the code stays beside them for IT. One entry per
 * operation the server records (AUDIT_OPERATIONS, generated from bff/audit/operations.py): a
 * new operation without words fails the type check. */
import { AUDIT_OPERATIONS } from '../../lib/server.gen';

export type AuditOperation = (typeof AUDIT_OPERATIONS)[number];

export const OPERATION_WORDS: Record<AuditOperation, string> = {
  login: 'Signed in',
  login_failed: 'Sign-in failed',
  logout: 'Signed out',
  logout_all: 'Signed out of all sessions',
  mfa_enrol: 'Set up a second factor',
  mfa_remove: 'Removed a second factor',
  mfa_success: 'Second factor accepted',
  mfa_failed: 'Second factor refused',
  mfa_recovery_codes: 'Made new recovery codes',
  mfa_reset: 'Reset a second factor',
  user_create: 'Created a user',
  user_update: 'Changed a user',
  user_delete: 'Deleted a user',
  password_reset: 'Reset a password',
  container_create: 'Created a container',
  folder_create: 'Created a folder',
  container_assign: 'Assigned a container',
  container_unassign: 'Unassigned a container',
  folder_assign: 'Assigned folders',
  folder_unassign: 'Unassigned a folder',
  folder_list: 'Listed folders',
  file_list: 'Listed the files',
  file_upload: 'Uploaded',
  file_view: 'Viewed a file',
  file_copy: 'Copied text from a file',
  file_delete: 'Deleted a file',
  profile_upload: 'Uploaded a profile image',
  profile_view: 'Viewed the profile image',
  profile_delete: 'Deleted the profile image',
  version_list: 'Listed versions',
  version_view: 'Viewed an earlier version',
  version_create: 'Kept a version',
  version_restore: 'Restored a version',
  version_purge: 'Deleted old versions',
  trash_list: 'Listed the trash',
  trash_restore: 'Restored from the trash',
  trash_purge: 'Deleted from the trash for good',
  file_rejected: 'A file refused',
  file_released: 'A held file released',
  quarantine_list: 'Listed the quarantine',
  quarantine_delete: 'Deleted from the quarantine',
  access_denied: 'Access refused',
  token_list: 'Listed SmartTokens',
  token_register: 'Registered a SmartToken',
  token_assign: 'Assigned a SmartToken',
  token_unlink: 'Unlinked a SmartToken',
  token_revoke: 'Disconnected a SmartToken',
  token_reactivate: 'Reactivated a SmartToken',
  token_delete: 'Deleted a SmartToken',
  emergency_access: 'Emergency access',
  emergency_refused: 'Emergency access refused',
  emergency_end: 'Emergency access ended',
  audit_report: 'Viewed the access history',
  audit_export: 'Exported the audit log',
  demo_load: 'Loaded demo data',
  patient_view: 'Viewed patient details',
  patient_update: 'Changed patient details',
  search: 'Searched the files',
};

/** The words for an operation code; an unknown code (recorded by a newer server) as itself. */
export function operationWords(code: string): string {
  return Object.hasOwn(OPERATION_WORDS, code) ? OPERATION_WORDS[code as AuditOperation] : code;
}
