/** The second sign-in step's wording (the password step keeps the spec's messages in LoginPage). */
export const MFA_MSG = {
  title: 'Two-step verification',
  totpPrompt: 'Enter the 6-digit code from your authenticator app.',
  recoveryPrompt: 'Enter one of your recovery codes. Each code works once.',
  passkeyPrompt: 'Use the passkey saved on this device or your security key.',
  codeRequired: 'Please enter the code.',
  failed: 'Verification failed. Please try again.',
  passkeyCancelled: 'The passkey was not used. Please try again.',
  /** The server's text for an expired or used-up mfaToken: back to the password step. */
  expired: 'Your sign-in has expired. Please sign in again.',
} as const;
