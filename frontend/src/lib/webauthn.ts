/**
 * Passkeys through the browser's own WebAuthn API: the server's options (JSON, as py_webauthn
 * writes them) are parsed with PublicKeyCredential.parse*OptionsFromJSON and the credential is
 * sent back as its toJSON(). No crypto here: the authenticator signs, the server verifies.
 */

type JsonObject = Record<string, unknown>;

interface JsonCapable {
  parseCreationOptionsFromJSON?: (options: unknown) => CredentialCreationOptions['publicKey'];
  parseRequestOptionsFromJSON?: (options: unknown) => CredentialRequestOptions['publicKey'];
}

/** Whether this browser can create and use passkeys with JSON options. */
export function passkeysSupported(): boolean {
  const api = (globalThis as { PublicKeyCredential?: JsonCapable }).PublicKeyCredential;
  return Boolean(api?.parseCreationOptionsFromJSON && api.parseRequestOptionsFromJSON && navigator.credentials);
}

function toJson(credential: Credential | null): JsonObject {
  if (!credential) throw new Error('No passkey was chosen.');
  return (credential as unknown as { toJSON: () => JsonObject }).toJSON();
}

/** navigator.credentials.create() with the server's creation options; the new credential as JSON. */
export async function createPasskey(options: unknown): Promise<JsonObject> {
  checkAddress(options);
  const api = PublicKeyCredential as unknown as Required<JsonCapable>;
  return toJson(await navigator.credentials.create({ publicKey: api.parseCreationOptionsFromJSON(options) }));
}

/** navigator.credentials.get() with the server's request options; the assertion as JSON. */
export async function getPasskeyAssertion(options: unknown): Promise<JsonObject> {
  checkAddress(options);
  const api = PublicKeyCredential as unknown as Required<JsonCapable>;
  return toJson(await navigator.credentials.get({ publicKey: api.parseRequestOptionsFromJSON(options) }));
}

/** Whether a host name is an IP address (IPv4, or IPv6 as the browser writes it: [::1]). */
function isIpAddress(hostname: string): boolean {
  return /^\d{1,3}(\.\d{1,3}){3}$/.test(hostname) || hostname.startsWith('[') || hostname.includes(':');
}

interface Where {
  hostname: string;
  port: string;
  protocol: string;
}

/**
 * Why passkeys cannot work at this page's address, or null. WebAuthn refuses an IP address as
 * the relying party, so a portal opened at http://127.0.0.1:8000 must be opened at
 * http://localhost:8000 (or at a name BFF_PUBLIC_URL gives); and a passkey for `rpId` (the
 * server's, from BFF_PUBLIC_URL) works only on that host or under it. Said instead of "not
 * created", which would send the user to try again at the same address.
 */
export function passkeyAddressProblem(where: Where = window.location, rpId: string | null = null): string | null {
  if (isIpAddress(where.hostname)) {
    const local = where.hostname === '127.0.0.1' || where.hostname === '[::1]';
    const suggestion = local
      ? `Open the portal at ${where.protocol}//localhost${where.port ? `:${where.port}` : ''} instead`
      : 'Open the portal at its name instead';
    return `Passkeys do not work at an IP address such as ${where.hostname}. ${suggestion}, or ask IT to set BFF_PUBLIC_URL to the portal's name, and try again.`;
  }
  if (rpId && where.hostname !== rpId && !where.hostname.endsWith(`.${rpId}`)) {
    return `Passkeys for this portal work at ${rpId}, not at ${where.hostname}. Open the portal at ${rpId}, or ask IT to set BFF_PUBLIC_URL to the address people use, and try again.`;
  }
  return null;
}

/** A passkey not even asked for: the page's address cannot work (the message says what to change). */
export class PasskeyAddressError extends Error {}

/** The relying party the server's options name (creation: rp.id; request: rpId). */
function relyingPartyOf(options: unknown): string | null {
  if (typeof options !== 'object' || options === null) return null;
  const o = options as { rp?: { id?: unknown }; rpId?: unknown };
  const id = o.rp?.id ?? o.rpId;
  return typeof id === 'string' ? id : null;
}

/** Throws PasskeyAddressError when the page's address cannot work for these options. */
function checkAddress(options: unknown): void {
  const problem = passkeyAddressProblem(window.location, relyingPartyOf(options));
  if (problem) throw new PasskeyAddressError(problem);
}
