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
