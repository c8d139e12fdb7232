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

/** Single sign-on on the login page: a code this tab did not ask for, and an account not linked yet. */
export const SSO_MSG = {
  notStartedHere: 'That sign-in was not started in this window, so it was not used. Please sign in again.',
  notLinked: (provider: string) => `Your ${provider} account is not linked to a Patient Records account yet.`,
  askAdmin: 'Ask an administrator to link your account.',
  codeHeading: 'I have a link code',
  codeIntro: 'Enter the link code your administrator gave you. It works once.',
  codeLabel: 'Link code',
  codeRequired: 'Please enter the link code.',
  codeButton: 'Link with the code and sign in',
  passwordHeading: 'I have a Patient Records password',
  proveIntro: 'Link your account yourself by signing in with its password once.',
  linkButton: 'Link and sign in',
  linking: 'Linking…',
  back: 'Back to sign-in',
} as const;
