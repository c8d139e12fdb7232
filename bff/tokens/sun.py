"""NTAG 424 DNA Secure Unique NFC (SUN) messages: the cryptography of NXP AN12196, section 4.

On every tap the tag writes PICCData (a tag byte, its 7-byte UID and its 3-byte read counter,
encrypted with the deployment's SDM meta-read key, AES-128-CBC with a zero IV) and an SDMMAC:
AES-CMAC over the empty input with a session key derived from the tag's own file-read key
and the counter, truncated to its 8 odd-indexed bytes. Pure functions, no I/O.
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass

from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.cmac import CMAC

KEY_BYTES = 16
UID_BYTES = 7
COUNTER_MAX = 0xFFFFFF
# PICCDataTag: bit 7 UID mirrored, bit 6 counter mirrored, bits 0-3 the UID length (7).
PICC_DATA_TAG = 0xC7
# SV2 prefix for KSesSDMFileReadMAC (AN12196 table 4 / NT4H2421Gx section 9.3.9.1).
SV2_PREFIX = bytes.fromhex("3CC300010080")
ZERO_IV = bytes(16)


class SunError(ValueError):
    """A SUN message that is not one this deployment's tags could have written."""


@dataclass(frozen=True)
class PiccData:
    """What a tap's encrypted PICCData says: which tag, and its read counter."""

    uid: bytes
    counter: int


def _cipher(key: bytes) -> Cipher[modes.CBC]:
    return Cipher(algorithms.AES128(key), modes.CBC(ZERO_IV))


def decrypt_picc_data(meta_read_key: bytes, encrypted: bytes) -> PiccData:
    """Decrypt PICCData and check its tag byte; SunError when it is not a UID + counter mirror."""
    if len(encrypted) != 16:
        raise SunError("PICCData is 16 bytes")
    decryptor = _cipher(meta_read_key).decryptor()
    plain = decryptor.update(encrypted) + decryptor.finalize()
    if plain[0] != PICC_DATA_TAG:
        raise SunError("PICCDataTag is not UID and counter mirrored with a 7-byte UID")
    uid = plain[1 : 1 + UID_BYTES]
    counter = int.from_bytes(plain[1 + UID_BYTES : 1 + UID_BYTES + 3], "little")
    return PiccData(uid=uid, counter=counter)


def encrypt_picc_data(meta_read_key: bytes, uid: bytes, counter: int, padding: bytes) -> bytes:
    """PICCData as a tag encrypts it (padding: the tag's 5 random bytes). For simulators."""
    _check(uid, counter)
    if len(padding) != 5:
        raise SunError("PICCData padding is 5 bytes")
    plain = bytes([PICC_DATA_TAG]) + uid + counter.to_bytes(3, "little") + padding
    encryptor = _cipher(meta_read_key).encryptor()
    return encryptor.update(plain) + encryptor.finalize()


def _cmac(key: bytes, data: bytes) -> bytes:
    mac = CMAC(algorithms.AES128(key))
    mac.update(data)
    return mac.finalize()


def session_mac_key(file_read_key: bytes, uid: bytes, counter: int) -> bytes:
    """KSesSDMFileReadMAC = AES-CMAC(file-read key, SV2), SV2 = 3CC300010080 || UID || counter."""
    _check(uid, counter)
    return _cmac(file_read_key, SV2_PREFIX + uid + counter.to_bytes(3, "little"))


def truncate(full_mac: bytes) -> bytes:
    """The 8 odd-indexed bytes of a 16-byte CMAC (AN12196's MACt)."""
    return full_mac[1::2]


def sdm_mac(file_read_key: bytes, uid: bytes, counter: int) -> bytes:
    """The 8-byte SDMMAC a tag writes for this tap (CMAC over the empty input)."""
    return truncate(_cmac(session_mac_key(file_read_key, uid, counter), b""))


def mac_matches(file_read_key: bytes, uid: bytes, counter: int, mac: bytes) -> bool:
    """Whether mac is the tag's SDMMAC for this counter, compared in constant time."""
    return hmac.compare_digest(sdm_mac(file_read_key, uid, counter), mac)


def _check(uid: bytes, counter: int) -> None:
    if len(uid) != UID_BYTES:
        raise SunError("a tag UID is 7 bytes")
    if not 0 <= counter <= COUNTER_MAX:
        raise SunError("a tap counter is 3 bytes")
