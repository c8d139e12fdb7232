"""TOTP seeds sealed for the database, and recovery codes as keyed hashes (no crypto by hand).

A seed is stored only encrypted: AES-256-GCM (`cryptography`) under a key derived with
HKDF-SHA256 from BFF_MFA_KEY (else BFF_SECRET_KEY), with the user's id as associated data, so
a sealed seed copied onto another user's row does not open. Recovery codes are random (50 bits)
and stored only as HMAC-SHA256 under another key derived the same way: a database copy alone
neither reveals nor lets anyone test them.
"""

from __future__ import annotations

import base64
import binascii
import functools
import hashlib
import hmac
import secrets

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from config.settings import Settings

SEALED_PREFIX = "v1:"
RECOVERY_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"  # no 0/o, 1/l/i: read aloud, typed by hand
RECOVERY_GROUP = 5  # characters per group; a code is two groups: "abcde-fghjk"


class SeedUnavailable(Exception):
    """A sealed seed this deployment cannot open (another key, or damaged)."""


@functools.lru_cache(maxsize=8)
def _derive(secret: str, purpose: bytes) -> bytes:
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=purpose).derive(
        secret.encode()
    )


def seal_seed(settings: Settings, user_id: int, seed: str) -> str:
    """A TOTP seed encrypted for the database."""
    key = AESGCM(_derive(settings.mfa_sealing_secret(), b"bff totp seeds v1"))
    nonce = secrets.token_bytes(12)
    sealed = key.encrypt(nonce, seed.encode(), str(user_id).encode())
    return SEALED_PREFIX + base64.b64encode(nonce + sealed).decode()


def open_seed(settings: Settings, user_id: int, sealed: str) -> str:
    """The TOTP seed; SeedUnavailable when this deployment did not seal it for this user."""
    key = AESGCM(_derive(settings.mfa_sealing_secret(), b"bff totp seeds v1"))
    try:
        raw = base64.b64decode(sealed.removeprefix(SEALED_PREFIX), validate=True)
        return key.decrypt(raw[:12], raw[12:], str(user_id).encode()).decode()
    except (InvalidTag, ValueError, binascii.Error):
        raise SeedUnavailable from None


def new_recovery_code() -> str:
    """A random recovery code such as 'k7m2p-xq4rt'."""
    chars = "".join(secrets.choice(RECOVERY_ALPHABET) for _ in range(2 * RECOVERY_GROUP))
    return f"{chars[:RECOVERY_GROUP]}-{chars[RECOVERY_GROUP:]}"


def normalize_recovery_code(code: str) -> str:
    """A typed code as generated: lower case, without spaces or dashes, regrouped."""
    chars = "".join(c for c in code.lower() if c.isalnum())
    return f"{chars[:RECOVERY_GROUP]}-{chars[RECOVERY_GROUP:]}"


def recovery_hash(settings: Settings, user_id: int, code: str) -> str:
    """The keyed hash a recovery code is stored as (hex)."""
    key = _derive(settings.mfa_sealing_secret(), b"bff recovery codes v1")
    message = f"{user_id}:{normalize_recovery_code(code)}".encode()
    return hmac.new(key, message, hashlib.sha256).hexdigest()
