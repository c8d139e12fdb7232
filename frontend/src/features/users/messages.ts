/** The user form's messages, worded as in spec sections 2 and 8. */
import { PASSWORD_LENGTH } from '../../lib/server.gen';

export const USER_FORM_MSG = {
  required: 'Please fill in all required fields.',
  passwordLength: `The password must be ${PASSWORD_LENGTH.min} to ${PASSWORD_LENGTH.max} characters long.`,
  created: 'User created successfully',
  updated: 'User updated successfully',
  createFailed: 'Failed to create user',
  updateFailed: 'Failed to update user',
  loading: 'Loading user…',
  loadFailed: 'Failed to load user data',
} as const;

/** The intake permission (issue 51): granted or withdrawn on the user's edit page (audited). */
export const INTAKE_PERMISSION_LABEL = 'May file documents from the intake';
export const INTAKE_PERMISSION_HINT = 'The Intake page: documents from the scanners, the mailbox and uploads, filed to any folder they can see.';

/** The single sign-on card of the user edit page. */
export const SSO_MSG = {
  loadFailed: 'Failed to load single sign-on',
  subjectRequired: 'Enter the subject, or pick one of the sign-ins below.',
  subjectHint: 'Exactly as the identity provider sends it (its sub claim), or pick one of the sign-ins below after checking who it is.',
  adminBySubject: 'An administrator account is linked by its subject only.',
  unlink: { title: 'Unlink from the identity provider?', confirm: 'Unlink', busy: 'Unlinking…', failed: 'Failed to unlink the user' },
  expect: { title: 'Link at next sign-in?', confirm: 'Issue a link code', busy: 'Issuing…', failed: 'Failed to issue a link code' },
  withdraw: { title: 'Withdraw the link code?', confirm: 'Withdraw', busy: 'Withdrawing…', failed: 'Failed to withdraw it' },
  codeLabel: 'Link code',
  codeHidden: 'Hide the code',
  copyFailed: 'Could not copy: select the code and copy it by hand.',
  bind: { title: 'Link to this subject?', confirm: 'Link', busy: 'Linking…', failed: 'Failed to link the user' },
} as const;
