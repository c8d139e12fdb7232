"""Backup of a whole deployment, its database and every stored object, while it keeps serving.

The steps:
1. copy every object (`Storage.walk`, staging excluded) into the snapshot, hashing it as it
   streams;
2. read the database at one instant T (bff/backup/database.py) and dump every table;
3. reconcile the files with the index as of T: a folder's file (or kept RTF original) the index
   did not list at T is dropped from the snapshot, one it lists that was not copied or has
   another size (uploaded or replaced during step 1) is copied again, and any other object that
   appeared meanwhile (a version, a trash entry) is copied too; an audit checkpoint or signed
   head written meanwhile is not (it names entries after T). What the
   snapshot holds is then the deployment as of T;
4. write the object list, then the manifest (time, schema = applied migrations, product
   version, counts, the audit chain's head, every part's SHA-256), last.
Every part and object is encrypted to the backup recipient as it streams, and the manifest is
sealed with the backup key (bff/backup/crypto.py).

Restore: bff/backup/restore.py; what both share (streaming an object through hashing and
encryption, bounded concurrency, names): bff/backup/copying.py.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import tempfile
from collections.abc import AsyncIterable, AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pyrage import x25519

from bff.audit.repository import HEAD as AUDIT_HEAD
from bff.audit.signed import PREFIX as AUDIT_PREFIX
from bff.backup import database as db
from bff.backup.copying import (
    COPY_CONCURRENCY,
    ENCRYPTED,
    OBJECT_PREFIX,
    Say,
    bounded,
    copy_object,
    part_name,
    product_version,
)
from bff.backup.crypto import encrypt, recipient
from bff.backup.snapshot import (
    FORMAT,
    MANIFEST,
    OBJECT_LIST,
    Hashed,
    SnapshotError,
    gzip_lines,
    manifest_bytes,
    new_snapshot,
    one_chunk,
    sorted_entries,
)
from bff.files.reindex import indexed_objects, is_file_key
from bff.files.repository import INDEX_ROWS
from config.settings import Settings
from storage import open_storage
from storage.base import NotFound, ObjectKey, Storage

RECONCILE_ROUNDS = 5
# A checkpoint or signed head of the audit log that appears after T names entries the snapshot
# does not hold (a restore would take them for deleted): only those copied before T are kept,
# and the restored deployment writes its own from there.
AUDIT_OBJECTS = AUDIT_PREFIX + "/"


@dataclass(frozen=True)
class _Sealer:
    """How one backup names and encrypts what it writes."""

    to: x25519.Recipient
    snapshot_id: str
    mac_key: bytes

    def stored_name(self, key: str) -> str:
        """The name an object is kept under: keyed, so it tells nothing of the file's name."""
        mark = f"{self.snapshot_id}/{key}".encode()
        name = hmac.new(self.mac_key, mark, hashlib.sha256).hexdigest()[:40]
        return f"{OBJECT_PREFIX}{name[:2]}/{name}{ENCRYPTED}"

    def encrypt(self, chunks: AsyncIterable[bytes]) -> AsyncIterator[bytes]:
        return encrypt(chunks, self.to)

    async def copy(self, source: Storage, key: str, out: Storage) -> dict[str, Any]:
        stored = self.stored_name(key)
        entry = await copy_object(
            source, key, out, stored, after=self.encrypt, content_type="application/octet-stream"
        )
        return {**entry, "stored": stored}

    async def write_part(
        self, out: Storage, name: str, lines: AsyncIterator[Any], parts: dict[str, Any]
    ) -> None:
        """One gzip'd JSON-lines part, encrypted; its SHA-256 and size (of the bytes stored)
        go into parts."""
        hashed = Hashed(self.encrypt(gzip_lines(lines)))
        await out.write_object(
            ObjectKey.parse(name), hashed, content_type="application/octet-stream"
        )
        parts[name] = {"sha256": hashed.digest, "size": hashed.size}


@dataclass
class BackupReport:
    """What a backup wrote."""

    location: str
    tables: dict[str, int]
    objects: int
    object_bytes: int
    database_bytes: int
    recipient: str = ""
    identity_here: bool = False  # the identity is the one generated into var/ on this server

    def lines(self) -> list[str]:
        rows = sum(self.tables.values())
        where = (
            " (var/backup_identity on this server: set BFF_BACKUP_RECIPIENT to keep it elsewhere)"
            if self.identity_here
            else ""
        )
        return [
            f"Snapshot written: {self.location}",
            f"Database: {len(self.tables)} tables, {rows} rows ({self.database_bytes} bytes)",
            f"Objects: {self.objects} ({self.object_bytes} bytes)",
            f"Encrypted to {self.recipient}: a restore needs its identity (private key){where}.",
        ]


async def backup(settings: Settings, location: str, say: Say = lambda _: None) -> BackupReport:
    """Write a consistent snapshot of the deployment to location (a directory or s3:// URL)."""
    entries: dict[str, dict[str, Any]] = {}
    parts: dict[str, dict[str, Any]] = {}
    mac_key = settings.backup_mac_key()
    sealer = _Sealer(recipient(settings), secrets.token_hex(16), mac_key)
    async with open_storage(settings.storage_url) as files, new_snapshot(location) as out:

        async def copy(key: str) -> None:
            entries[key] = await sealer.copy(files, key, out)

        async def keys() -> AsyncIterator[str]:
            async for info in files.walk():
                yield info.name

        say("Copying stored objects ...")
        await bounded(keys(), copy, COPY_CONCURRENCY)
        say(f"Copied {len(entries)} objects; reading the database ...")
        with tempfile.TemporaryDirectory(prefix="bff-backup-") as scratch:
            async with db.consistent_snapshot(settings.database_url, Path(scratch)) as source:
                tables = await source.tables()
                counts = {}
                for table in tables:
                    counts[table.name] = await _dump_table(source, table, out, parts, sealer)
                head = await source.query(AUDIT_HEAD) if "audit_logs" in counts else []
                index = await source.query(INDEX_ROWS)
                manifest_db = {
                    "dialect": source.dialect,
                    "migrations": await source.migrations(),
                    "sequences": await source.sequences(tables),
                    "tables": counts,
                }
        say("Reconciling stored objects with the index ...")
        await _reconcile(files, out, entries, index, sealer)
        listing = sorted_entries(entries.values())
        await sealer.write_part(out, OBJECT_LIST, _aiter(listing), parts)
        manifest: dict[str, Any] = {
            "format": FORMAT,
            "snapshotId": sealer.snapshot_id,
            "createdAt": datetime.now(UTC).isoformat(),
            "encryption": {"format": "age", "recipient": str(sealer.to)},
            "productVersion": product_version(),
            "schema": manifest_db["migrations"],
            "database": manifest_db,
            "storage": {
                "objects": len(listing),
                "bytes": sum(int(e["size"]) for e in listing),
            },
            "auditHead": {"id": int(head[0]["id"]), "hash": head[0]["hash"]} if head else None,
            "parts": parts,
        }
        await out.write_object(
            ObjectKey.parse(MANIFEST), one_chunk(manifest_bytes(manifest, mac_key))
        )
    return BackupReport(
        location,
        counts,
        len(listing),
        manifest["storage"]["bytes"],
        sum(p["size"] for name, p in parts.items() if name != OBJECT_LIST),
        str(sealer.to),
        identity_here=not settings.backup_recipient,
    )


async def _aiter(items: list[Any]) -> AsyncIterator[Any]:
    for item in items:
        yield item


async def _dump_table(
    source: db.SourceSnapshot,
    table: db.Table,
    out: Storage,
    parts: dict[str, Any],
    sealer: _Sealer,
) -> int:
    count = 0

    async def lines() -> AsyncIterator[Any]:
        nonlocal count
        yield {"table": table.name, "columns": [list(c) for c in table.columns]}
        async for batch in source.rows(table):
            count += len(batch)
            for row in batch:
                yield [db.encode(v) for v in row]

    await sealer.write_part(out, part_name(table.name), lines(), parts)
    return count


async def _reconcile(
    files: Storage,
    out: Storage,
    entries: dict[str, dict[str, Any]],
    index: list[dict[str, Any]],
    sealer: _Sealer,
) -> None:
    """Make the copied objects those of the index at T (see the module's docstring)."""
    wanted = indexed_objects(index)
    for key in [k for k in entries if is_file_key(k) and k not in wanted]:
        await out.delete_object(ObjectKey.parse(entries.pop(key)["stored"]))
    for _ in range(RECONCILE_ROUNDS):
        stale = [
            k
            for k, size in wanted.items()
            if k not in entries or (size is not None and entries[k]["size"] != size)
        ]
        async for info in files.walk():
            name = info.name
            if not is_file_key(name) and name not in entries and not name.startswith(AUDIT_OBJECTS):
                stale.append(name)
        if not stale:
            return
        for key in stale:
            try:
                entries[key] = await sealer.copy(files, key, out)
            except NotFound:
                gone = entries.pop(key, None)
                if gone is not None:
                    await out.delete_object(ObjectKey.parse(gone["stored"]))
    raise SnapshotError(
        "Files kept changing while the backup ran (replaced or deleted again and again); "
        "run it again."
    )
