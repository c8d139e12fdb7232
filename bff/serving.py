"""Where a running `python -m bff serve` is: while it serves, it names the address people open
(BFF_PUBLIC_URL, or the one made from BFF_HOST and BFF_PORT) in var/serving.json, so that a
command run beside it (the demo, `tokens simulate-tap`) prints the address that server really
answers at, even when the command's own settings would make another (no BFF_PORT in that shell).
Only a live server on the same database counts: a file a killed server left is ignored (its pid
given to another process since is told by the process's start time). The database is named by an
HMAC of its URL under a key derived from the app's secret (BFF_SECRET_KEY, or var/secret_key):
the URL may carry a password, and a plain digest of it would let anyone who reads the file try
passwords against it. A command finds the server when it has the same database and the same
secret (the same var/ or BFF_SECRET_KEY). The record is written only once the server listens: a
second server failing to bind its port leaves the first's alone."""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the command line imports this module before any settings are loaded
    from config.settings import Settings

FILE_NAME = "serving.json"


def _path(settings: Settings) -> Path:
    return settings.var_dir / FILE_NAME


def _database(settings: Settings) -> str:
    # A key of its own, derived from the secret (as bff/auth/links.py's): the session key
    # itself never signs anything but sessions.
    key = hmac.new(settings.signing_key().encode(), b"bff serving record v1", hashlib.sha256)
    return hmac.new(key.digest(), settings.database_url.encode(), hashlib.sha256).hexdigest()


@contextlib.contextmanager
def serving(settings: Settings) -> Iterator[None]:
    """While the block runs, var/serving.json names this process, its database and address
    (enter it once the server's port is bound)."""
    path = _path(settings)
    path.parent.mkdir(parents=True, exist_ok=True)
    record = {
        "pid": os.getpid(),
        "started": _started(os.getpid()),
        "url": settings.public_url,
        "database": _database(settings),
    }
    partial = path.with_name(f".{FILE_NAME}.{os.getpid()}")
    partial.write_text(json.dumps(record), encoding="utf-8")
    partial.replace(path)
    try:
        yield
    finally:
        with contextlib.suppress(OSError, ValueError):  # another server's by now, or gone
            if json.loads(path.read_text(encoding="utf-8")).get("pid") == os.getpid():
                path.unlink()


def served_url(settings: Settings) -> str | None:
    """The address of the server running on this database (var/serving.json), or None."""
    try:
        record = json.loads(_path(settings).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(record, dict) or record.get("database") != _database(settings):
        return None
    pid, url = record.get("pid"), record.get("url")
    if not isinstance(pid, int) or not isinstance(url, str) or not _alive(pid):
        return None
    if record.get("started") != _started(pid):  # the server died and its pid was given again
        return None
    return url


def as_served(settings: Settings) -> Settings:
    """settings with the running server's address as BFF_PUBLIC_URL (unchanged without one):
    for the links a command prints, such as a simulated SmartToken tap."""
    url = served_url(settings)
    return settings if url is None else settings.model_copy(update={"public_url": url})


def _started(pid: int) -> str | None:
    """When process pid started (Linux: /proc/PID/stat's starttime, in clock ticks since boot),
    so that a process given a dead server's pid is not taken for it; None where /proc is not."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii")
    except (OSError, ValueError):
        return None
    fields = stat.rsplit(")", 1)[-1].split()  # after the command's name, which may hold spaces
    return fields[19] if len(fields) > 19 else None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True
