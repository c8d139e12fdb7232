"""SmartToken ids and the signatures of their verification links.

The signature is HMAC-SHA256 keyed with the server's token key (BFF_TOKEN_KEY, never in the
database) over the token id, truncated to 128 bits and written as upper-case hex in four
groups of eight: the letters A-F, digits and hyphens the spec allows.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets

from config.settings import Settings

TOKEN_ID = re.compile(r"[0-9A-F]{32}")
SIGNATURE = re.compile(r"[0-9A-F]{8}(?:-[0-9A-F]{8}){3}")
SUN_MAC = re.compile(r"[0-9A-F]{16}")  # an NTAG 424 DNA tap's `s`; its path is PICCData


def new_token_id() -> str:
    """A random token id: 128 bits as 32 upper-case hex characters."""
    return secrets.token_hex(16).upper()


def sign(settings: Settings, token_id: str) -> str:
    """The signature of a token id."""
    digest = hmac.new(
        settings.token_signing_key().encode(), token_id.encode(), hashlib.sha256
    ).hexdigest()[:32]
    return "-".join(digest[i : i + 8] for i in range(0, 32, 8)).upper()


def signature_matches(settings: Settings, token_id: str, signature: str) -> bool:
    """Whether signature is the token id's, compared in constant time."""
    return hmac.compare_digest(sign(settings, token_id).encode(), signature.encode())


def verification_url(settings: Settings, token_id: str) -> str:
    """The address written to the device: {BFF_PUBLIC_URL}/patients/verify/{id}?s={signature}."""
    return f"{settings.public_url}/patients/verify/{token_id}?s={sign(settings, token_id)}"
