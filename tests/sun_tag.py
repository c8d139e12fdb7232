"""A simulated NTAG 424 DNA tag with SUN messages: on each tap it mirrors encrypted PICCData and
the truncated SDMMAC into its NDEF URL, as AN12196 describes. For tests and demos (no hardware).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field

from bff.tokens import sun
from bff.tokens.tagkeys import MAC_HEX, PICC_HEX, ndef_file


@dataclass
class SimulatedTag:
    """A personalised tag: its UID, the deployment's meta-read key and its own file-read key.

    The template and offsets are those the server returned at registration; a tap writes into
    the NDEF file at those offsets and reads the URL back out, as a phone would."""

    uid: bytes
    meta_read_key: bytes
    file_read_key: bytes
    template: str
    picc_data_offset: int
    mac_offset: int
    counter: int = 0
    taps: list[str] = field(default_factory=list)

    def tap(self, counter: int | None = None) -> str:
        """The URL a phone reads on the next tap (or at a given counter, to forge the past)."""
        if counter is None:
            self.counter += 1
            counter = self.counter
        picc = (
            sun.encrypt_picc_data(self.meta_read_key, self.uid, counter, secrets.token_bytes(5))
            .hex()
            .upper()
        )
        mac = sun.sdm_mac(self.file_read_key, self.uid, counter).hex().upper()
        ndef = bytearray(ndef_file(self.template))
        ndef[self.picc_data_offset : self.picc_data_offset + PICC_HEX] = picc.encode()
        ndef[self.mac_offset : self.mac_offset + MAC_HEX] = mac.encode()
        url = read_url(bytes(ndef))
        self.taps.append(url)
        return url


def read_url(ndef: bytes) -> str:
    """The URL of an NDEF file holding one URI record with identifier code 0x00."""
    flags = ndef[2]
    short = bool(flags & 0x10)
    if short:
        length, start = ndef[4], 6
    else:
        length, start = int.from_bytes(ndef[4:8], "big"), 9
    assert ndef[start - 1 : start] == b"U" and ndef[start] == 0x00
    return ndef[start + 1 : start + length].decode()


def path_of(url: str) -> str:
    """The path and query of a tap URL (what a test client requests)."""
    return url[url.index("/patients/verify/") :]
