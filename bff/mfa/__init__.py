"""Second factors: authenticator codes (TOTP), passkeys (WebAuthn) and recovery codes."""
