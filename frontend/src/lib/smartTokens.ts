/** Pure SmartToken rules: id display, reason lists, the assign payload and verification links (spec 3, 5, 8, 9). */

/** Token ids are shown as first 8 + '...' + last 8 characters when 16 or longer (spec section 9). */
export function shortTokenId(id: string): string {
  return id.length >= 16 ? `${id.slice(0, 8)}...${id.slice(-8)}` : id;
}

export const REVOKE_REASONS = [
  'Token lost by patient',
  'Token damaged or malfunctioning',
  'Patient reported token stolen',
  'Security breach suspected',
  'Patient no longer needs access',
  'Administrative revocation',
  'Other',
] as const;

export const DELETE_REASONS = [
  'Physical token permanently lost',
  'Token stolen and cannot be recovered',
  'Token physically damaged beyond repair',
  'Need to assign patient folder to new token',
  'Patient deceased - cleanup required',
  'Administrative cleanup',
  'Other permanent removal',
] as const;

/** The word an admin types to confirm a permanent delete. */
export const DELETE_CONFIRM_WORD = 'DELETE';
export const UNKNOWN_PATIENT = 'Unknown Patient';

export interface AssignForm {
  containerName: string;
  folderName: string;
  patientName: string;
  patientDateOfBirth: string;
}

/** Container, folder and a non-blank patient name are required (spec section 5). */
export function assignFormComplete(form: AssignForm): boolean {
  return Boolean(form.containerName && form.folderName && form.patientName.trim());
}

/**
 * The assign request body. The form already requires a name, so the 'Unknown Patient' default
 * of spec section 5 only applies to callers that skip that check (the server applies it too).
 */
export function assignPayload(tokenId: string, form: AssignForm) {
  return {
    tokenId,
    containerName: form.containerName,
    folderName: form.folderName,
    patientName: form.patientName.trim() || UNKNOWN_PATIENT,
    patientDateOfBirth: form.patientDateOfBirth.trim(),
  };
}

export const ASSIGN_MSG = {
  revoked: 'Cannot assign a revoked token. Please reactivate the token first.',
  alreadyAssigned:
    'This folder is already assigned to another token. The system will handle the reassignment.',
  failed: 'Failed to assign token',
} as const;

/** The message for a failed assignment (spec section 8), given the server's message if any. */
export function assignErrorText(serverMessage: string | null): string {
  if (!serverMessage) return ASSIGN_MSG.failed;
  if (/revoked/i.test(serverMessage)) return ASSIGN_MSG.revoked;
  if (/already assigned/i.test(serverMessage)) return ASSIGN_MSG.alreadyAssigned;
  return serverMessage;
}

/** The server's exact formats of a token id and a link signature (bff/tokens/signing.py). */
export const TOKEN_ID_FORMAT = /^[0-9A-F]{32}$/;
export const SIGNATURE_FORMAT = /^[0-9A-F]{8}(?:-[0-9A-F]{8}){3}$/;
/** The spec's looser check: only the letters A-F, digits and hyphens (spec section 5). */
const SIGNATURE_CHARACTERS = /^[A-F0-9-]+$/;

export const VERIFY_MSG = {
  missing: 'Invalid SmartToken URL - missing ID or signature',
  badSignature: 'Invalid signature format',
  verifying: 'Verifying emergency access token',
  neutral: 'This emergency access link is not valid or has expired.',
  /** What a responder does next when a link does not open the patient's information. */
  nextStep: 'Scan the token again. If it still does not open, call the phone number on the token.',
} as const;

export type VerifyDecision =
  | { kind: 'missing' }
  | { kind: 'bad-signature' }
  /** Passes the spec's check but is not a link the server would accept: never redirected. */
  | { kind: 'not-valid' }
  | { kind: 'redirect'; path: string };

/** What the verification landing page does with a link's id and signature. */
export function verifyDecision(id: string | null | undefined, signature: string | null | undefined): VerifyDecision {
  if (!id || !signature) return { kind: 'missing' };
  if (!SIGNATURE_CHARACTERS.test(signature)) return { kind: 'bad-signature' };
  if (!TOKEN_ID_FORMAT.test(id) || !SIGNATURE_FORMAT.test(signature)) return { kind: 'not-valid' };
  return { kind: 'redirect', path: `/patients/verify/${id}?s=${signature}` };
}

/** How long a redirect to the same link is held back, so a mis-served page can never loop. */
export const REDIRECT_GUARD_MS = 10_000;
const GUARD_PREFIX = 'smart-token-redirect:';
type GuardStorage = Pick<Storage, 'getItem' | 'setItem'>;

/**
 * Whether the browser was sent to this verification path within REDIRECT_GUARD_MS; storage that
 * cannot be read counts as yes, so the page never redirects blind.
 */
export function redirectedRecently(path: string, now: number, storage: GuardStorage): boolean {
  try {
    const last = Number(storage.getItem(GUARD_PREFIX + path));
    return Number.isFinite(last) && last > 0 && now - last < REDIRECT_GUARD_MS;
  } catch {
    return true;
  }
}

/** Record a redirect to this path; false when it cannot be recorded (then do not redirect). */
export function markRedirect(path: string, now: number, storage: GuardStorage): boolean {
  try {
    storage.setItem(GUARD_PREFIX + path, String(now));
    return true;
  } catch {
    return false;
  }
}
