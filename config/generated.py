"""Secrets a deployment that sets none gets generated on first use and kept in var/ (mode 0600):
the session-signing secret, the SmartToken, audit and intake cover-sheet keys, the SUN meta-read
key, the backup key and the backup's age identity. Settings (config/settings.py) reads them
through its methods.
"""

from __future__ import annotations

import functools
import os
import secrets
from collections.abc import Callable
from pathlib import Path


def age_identity() -> str:
    """A new age X25519 identity ("AGE-SECRET-KEY-1...")."""
    from pyrage import x25519

    return str(x25519.Identity.generate())


def age_recipient_of(path: Path) -> str:
    """The age recipient of the identity kept at path (generated on first use)."""
    from pyrage import x25519

    identity = persistent_secret(path, make=age_identity)
    return str(x25519.Identity.from_str(identity).to_public())


@functools.lru_cache(maxsize=64)
def persistent_secret(path: Path, hex_bytes: int = 0, make: Callable[[], str] | None = None) -> str:
    """Read a generated secret from path, creating it (mode 0600) on first use: make()'s when
    given, else hex_bytes random bytes as hex when given, else 48 as URL-safe text.

    Remembered per path: every request checks a token signature with it."""
    try:
        return path.read_text().strip()
    except FileNotFoundError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    if make is not None:
        value = make()
    else:
        value = secrets.token_hex(hex_bytes).upper() if hex_bytes else secrets.token_urlsafe(48)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # another process created it first: use theirs
        return path.read_text().strip()
    with os.fdopen(fd, "w") as handle:
        handle.write(value + "\n")
    return value
