"""What checking an NTAG 424 DNA SUN tap costs in CPU, beside a static link's HMAC.

Per tap the server decrypts PICCData (one AES block), opens the tag's sealed key (AES-GCM) and
computes two AES-CMACs; a static link costs one HMAC-SHA256. Prints microseconds per check.

Usage: .venv/bin/python bench/sun_bench.py [--taps 20000]
"""

from __future__ import annotations

import argparse
import secrets
import time

from bff.tokens import sun
from bff.tokens.signing import sign, signature_matches
from bff.tokens.tagkeys import open_sealed, seal
from config.settings import load_settings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--taps", type=int, default=20_000)
    taps = parser.parse_args().taps
    settings = load_settings(token_key="bench-" * 8, sdm_meta_read_key=secrets.token_hex(16))
    meta = settings.sdm_meta_read_key_bytes()
    uid, key = secrets.token_bytes(7), secrets.token_bytes(16)
    sealed = seal(settings, uid, key)
    messages = [
        (sun.encrypt_picc_data(meta, uid, n, secrets.token_bytes(5)), sun.sdm_mac(key, uid, n))
        for n in range(1, taps + 1)
    ]
    started = time.perf_counter()
    for picc, mac in messages:
        read = sun.decrypt_picc_data(meta, picc)
        assert sun.mac_matches(open_sealed(settings, read.uid, sealed), read.uid, read.counter, mac)
    sun_us = (time.perf_counter() - started) / taps * 1e6
    token_id = secrets.token_hex(16).upper()
    signature = sign(settings, token_id)
    started = time.perf_counter()
    for _ in range(taps):
        assert signature_matches(settings, token_id, signature)
    static_us = (time.perf_counter() - started) / taps * 1e6
    print(f"SUN tap check (decrypt, open key, 2 CMACs): {sun_us:.1f} us per tap, {taps} taps")
    print(f"static link check (HMAC-SHA256):            {static_us:.1f} us per link")


if __name__ == "__main__":
    main()
