"""Second-factor test helpers: TOTP codes computed with pyotp, sign-in steps, and a software
passkey authenticator (an ES256 key from `cryptography`, CBOR from cbor2) that answers the
server's real WebAuthn options the way a browser and authenticator do."""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import struct
import time
from dataclasses import dataclass, field
from typing import Any

import cbor2
import pyotp
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from quart.testing import QuartClient as Client

from tests.factories import PASSWORD

ADDR = "10.0.0.1"


def code(secret: str, steps_ahead: int = 0) -> str:
    """The TOTP code of secret now, or steps_ahead 30-second steps later (the server accepts
    one step either side)."""
    return pyotp.TOTP(secret).at(time.time() + 30 * steps_ahead)


async def call(
    client: Client, method: str, url: str, token: str | None = None, addr: str = ADDR, **kw: Any
) -> Any:
    """A request from addr, signed in with token when given."""
    headers = {"x-auth-token": token} if token else {}
    headers.update(kw.pop("headers", {}))
    return await client.open(
        url, method=method, headers=headers, scope_base={"client": (addr, 40000)}, **kw
    )


async def login(client: Client, username: str, password: str = PASSWORD, addr: str = ADDR) -> Any:
    return await call(
        client,
        "POST",
        "/api/auth/login",
        json={"username": username, "password": password},
        addr=addr,
    )


async def second_step(client: Client, mfa_token: str, addr: str = ADDR, **body: Any) -> Any:
    return await call(
        client, "POST", "/api/auth/login/mfa", json={"mfaToken": mfa_token, **body}, addr=addr
    )


async def enrol_totp(client: Client, token: str) -> tuple[str, list[str], Any]:
    """Set up an authenticator for the session's user: (secret, recovery codes, confirm body)."""
    started = await call(client, "POST", "/api/auth/mfa/totp", token)
    assert started.status_code == 200, await started.get_data()
    secret = (await started.get_json())["secret"]
    confirmed = await call(
        client, "POST", "/api/auth/mfa/totp/confirm", token, json={"code": code(secret)}
    )
    assert confirmed.status_code == 200, await confirmed.get_data()
    body = await confirmed.get_json()
    return secret, body["recoveryCodes"], body


async def mfa_token_for(client: Client, username: str, addr: str = ADDR) -> str:
    response = await login(client, username, addr=addr)
    assert response.status_code == 200, await response.get_data()
    body = await response.get_json()
    assert body["mfaRequired"] is True and "token" not in body
    return str(body["mfaToken"])


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@dataclass
class SoftAuthenticator:
    """A platform authenticator in software: one ES256 credential per registration."""

    origin: str
    keys: dict[bytes, ec.EllipticCurvePrivateKey] = field(default_factory=dict)
    counter: int = 0

    def _auth_data(self, rp_id: str, flags: int, attested: bytes = b"") -> bytes:
        self.counter += 1
        rp_hash = hashlib.sha256(rp_id.encode()).digest()
        return rp_hash + bytes([flags]) + struct.pack(">I", self.counter) + attested

    def _client_data(self, kind: str, challenge: str) -> bytes:
        return json.dumps(
            {"type": kind, "challenge": challenge, "origin": self.origin, "crossOrigin": False}
        ).encode()

    def create(self, options: dict[str, Any]) -> dict[str, Any]:
        """navigator.credentials.create(): a registration credential as JSON (attestation none)."""
        key = ec.generate_private_key(ec.SECP256R1())
        credential_id = secrets.token_bytes(16)
        self.keys[credential_id] = key
        numbers = key.public_key().public_numbers()
        cose = {
            1: 2,
            3: -7,
            -1: 1,
            -2: numbers.x.to_bytes(32, "big"),
            -3: numbers.y.to_bytes(32, "big"),
        }
        attested = (
            bytes(16) + struct.pack(">H", len(credential_id)) + credential_id + cbor2.dumps(cose)
        )
        auth_data = self._auth_data(options["rp"]["id"], 0x45, attested)  # UP, UV, AT
        attestation = cbor2.dumps({"fmt": "none", "attStmt": {}, "authData": auth_data})
        client_data = self._client_data("webauthn.create", options["challenge"])
        return {
            "id": b64url(credential_id),
            "rawId": b64url(credential_id),
            "type": "public-key",
            "response": {
                "clientDataJSON": b64url(client_data),
                "attestationObject": b64url(attestation),
                "transports": ["internal"],
            },
            "clientExtensionResults": {},
            "authenticatorAttachment": "platform",
        }

    def get(self, options: dict[str, Any], credential_id: bytes | None = None) -> dict[str, Any]:
        """navigator.credentials.get(): an assertion by an allowed credential, as JSON."""
        if credential_id is None:
            allowed = [unb64url(c["id"]) for c in options.get("allowCredentials", [])]
            credential_id = next(c for c in allowed if c in self.keys)
        auth_data = self._auth_data(options["rpId"], 0x05)  # UP, UV
        client_data = self._client_data("webauthn.get", options["challenge"])
        signed = auth_data + hashlib.sha256(client_data).digest()
        signature = self.keys[credential_id].sign(signed, ec.ECDSA(hashes.SHA256()))
        return {
            "id": b64url(credential_id),
            "rawId": b64url(credential_id),
            "type": "public-key",
            "response": {
                "clientDataJSON": b64url(client_data),
                "authenticatorData": b64url(auth_data),
                "signature": b64url(signature),
                "userHandle": None,
            },
            "clientExtensionResults": {},
        }
