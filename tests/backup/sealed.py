"""Reading and rewriting an encrypted snapshot from outside, as an attacker holding the backup
folder would (here also holding the identity, the strongest case: only the backup key is
missing), and as the tests check what a snapshot holds."""

from __future__ import annotations

import gzip
import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyrage
from pyrage import x25519

from bff.backup.crypto import load_identity
from config.settings import Settings

Rows = Callable[[list[Any]], list[Any]]


def identity(settings: Settings) -> x25519.Identity:
    """The deployment's generated backup identity (var/backup_identity)."""
    return load_identity(settings.var_dir / "backup_identity")


def sealed(snapshot: Path) -> dict[str, Any]:
    """The manifest file as JSON."""
    data: dict[str, Any] = json.loads((snapshot / "manifest.json").read_text())
    return data


def recipient(snapshot: Path) -> x25519.Recipient:
    """The recipient the snapshot says it is encrypted to (public)."""
    return x25519.Recipient.from_str(sealed(snapshot)["manifest"]["encryption"]["recipient"])


def part_lines(snapshot: Path, name: str, key: x25519.Identity) -> list[Any]:
    """A part's JSON lines, decrypted."""
    plain = gzip.decompress(pyrage.decrypt((snapshot / name).read_bytes(), [key]))
    return [json.loads(line) for line in plain.splitlines() if line]


def write_part(snapshot: Path, name: str, lines: list[Any], *, update_manifest: bool) -> None:
    """Replace a part by lines, encrypted to the snapshot's recipient; with update_manifest, its
    SHA-256 and size in the manifest are recomputed too (the HMAC cannot be)."""
    plain = b"".join(json.dumps(line).encode() + b"\n" for line in lines)
    data = pyrage.encrypt(gzip.compress(plain), [recipient(snapshot)])
    (snapshot / name).write_bytes(data)
    if update_manifest:
        manifest = sealed(snapshot)
        manifest["manifest"]["parts"][name] = {
            "sha256": hashlib.sha256(data).hexdigest(),
            "size": len(data),
        }
        (snapshot / "manifest.json").write_text(json.dumps(manifest))


def promote(user_id: int) -> Rows:
    """A users part's rows with user_id made an admin."""

    def edit(lines: list[Any]) -> list[Any]:
        columns = [name for name, _ in lines[0]["columns"]]
        at_id, at_role = columns.index("id"), columns.index("role")
        for row in lines[1:]:
            if row[at_id] == user_id:
                row[at_role] = "admin"
        return lines

    return edit


def objects(snapshot: Path, key: x25519.Identity) -> dict[str, bytes]:
    """Every object the snapshot holds, by its storage key, decrypted."""
    return {
        entry["key"]: pyrage.decrypt((snapshot / entry["stored"]).read_bytes(), [key])
        for entry in part_lines(snapshot, "objects.jsonl.gz.age", key)
    }


def stored_name(snapshot: Path, key: x25519.Identity, object_key: str) -> str:
    """The name an object is kept under in the snapshot."""
    for entry in part_lines(snapshot, "objects.jsonl.gz.age", key):
        if entry["key"] == object_key:
            return str(entry["stored"])
    raise KeyError(object_key)
