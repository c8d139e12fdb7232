/** The Security page's wording. */
export const SECURITY_MSG = {
  loadFailed: 'Failed to load your security settings',
  setupFailed: 'Failed to set up the authenticator',
  codeRequired: 'Please enter the code from your authenticator app.',
  passkeyFailed: 'Failed to add the passkey',
  passkeyUnsupported: 'This browser cannot create passkeys.',
  passkeyCancelled: 'The passkey was not created.',
  labelRequired: 'Please name the passkey.',
  identityRequired: 'Enter a current code from your authenticator, or your password.',
  stepUpIntro: 'This change needs a recent sign-in. Enter your password, or a current code from your authenticator.',
  stepUpIntroPassword: 'This change needs a recent sign-in. Enter your password.',
  confirmFailed: 'Failed to confirm it is you',
  removeFailed: 'Failed to remove it',
  regenerateFailed: 'Failed to create new recovery codes',
  codesOnce: 'Save these recovery codes now: they are shown only once. Each works once, if you lose your authenticator and passkeys.',
  enrolTitle: 'Set up a second factor',
  enrolIntro: 'Your role requires a second factor. Set up an authenticator app or a passkey before you continue.',
} as const;
