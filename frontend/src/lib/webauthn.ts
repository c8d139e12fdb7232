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
  const api = PublicKeyCredential as unknown as Required<JsonCapable>;
  return toJson(await navigator.credentials.create({ publicKey: api.parseCreationOptionsFromJSON(options) }));
}

/** navigator.credentials.get() with the server's request options; the assertion as JSON. */
export async function getPasskeyAssertion(options: unknown): Promise<JsonObject> {
  const api = PublicKeyCredential as unknown as Required<JsonCapable>;
  return toJson(await navigator.credentials.get({ publicKey: api.parseRequestOptionsFromJSON(options) }));
}
