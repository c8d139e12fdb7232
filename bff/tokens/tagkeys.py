"""Per-tag SDM file-read keys, sealed for the database, and the SUN URL layout written to tags.

A tag's key is stored only encrypted: AES-256-GCM under a key derived with HKDF-SHA256 from
BFF_TOKEN_KEY (never in the database), with the tag's UID as associated data, so a sealed key
copied onto another tag's row does not open. A deployment with another token key cannot open it.
"""

from __future__ import annotations

import base64
import binascii
import functools
import secrets
from dataclasses import dataclass

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from bff.tokens.sun import KEY_BYTES
from config.settings import Settings

SEALED_PREFIX = "v1:"
PICC_HEX = 32  # characters of encrypted PICCData in the URL
MAC_HEX = 16  # characters of the truncated SDMMAC


class KeyUnavailable(Exception):
    """A sealed tag key this deployment cannot open (another BFF_TOKEN_KEY, or damaged)."""


@functools.lru_cache(maxsize=8)
def _sealing_key(token_key: str) -> AESGCM:
    derived = HKDF(
        algorithm=hashes.SHA256(), length=32, salt=None, info=b"bff sdm file-read keys v1"
    ).derive(token_key.encode())
    return AESGCM(derived)


def new_file_read_key() -> bytes:
    """A random AES-128 key for a tag personalised here."""
    return secrets.token_bytes(KEY_BYTES)


def seal(settings: Settings, uid: bytes, key: bytes) -> str:
    """The tag's key encrypted for the database."""
    nonce = secrets.token_bytes(12)
    sealed = _sealing_key(settings.token_signing_key()).encrypt(nonce, key, uid)
    return SEALED_PREFIX + base64.b64encode(nonce + sealed).decode()


def open_sealed(settings: Settings, uid: bytes, sealed: str) -> bytes:
    """The tag's key; KeyUnavailable when this deployment did not seal it."""
    try:
        raw = base64.b64decode(sealed.removeprefix(SEALED_PREFIX), validate=True)
        return _sealing_key(settings.token_signing_key()).decrypt(raw[:12], raw[12:], uid)
    except (InvalidTag, ValueError, binascii.Error):
        raise KeyUnavailable from None


@dataclass(frozen=True)
class UrlTemplate:
    """The NDEF URL to write to a tag and where the tag mirrors PICCData and its MAC.

    Offsets are byte offsets in the NDEF file (what SDMSettings' PICCDataOffset and
    SDMMACOffset / SDMMACInputOffset name) when the URL is written whole, as one URI record
    with identifier code 0x00 (no prefix abbreviation)."""

    url: str
    picc_data_offset: int
    mac_offset: int

    def url_for(self, picc_data: bytes, mac: bytes) -> str:
        """The URL with a tap's encrypted PICCData and truncated MAC in place."""
        base = self.url[: -(PICC_HEX + len("?s=") + MAC_HEX)]
        return f"{base}{picc_data.hex().upper()}?s={mac.hex().upper()}"


def url_template(settings: Settings) -> UrlTemplate:
    """The SUN URL with placeholders, and its SDM offsets."""
    prefix = f"{settings.public_url}/patients/verify/"
    url = f"{prefix}{'0' * PICC_HEX}?s={'0' * MAC_HEX}"
    payload = 1 + len(url.encode())  # the URI identifier code, then the URL
    # NLEN (2), then the record header: flags, type length, payload length (1 byte in a short
    # record, 4 otherwise), the type "U"; then the identifier code.
    header = 2 + 1 + 1 + (1 if payload < 256 else 4) + 1 + 1
    picc = header + len(prefix.encode())
    return UrlTemplate(url=url, picc_data_offset=picc, mac_offset=picc + PICC_HEX + len("?s="))


def ndef_file(template: str) -> bytes:
    """The NDEF file bytes for a URL written as one URI record with identifier code 0x00."""
    payload = b"\x00" + template.encode()
    if len(payload) < 256:
        record = bytes([0xD1, 0x01, len(payload)]) + b"U" + payload
    else:
        record = bytes([0xC1, 0x01]) + len(payload).to_bytes(4, "big") + b"U" + payload
    return len(record).to_bytes(2, "big") + record
