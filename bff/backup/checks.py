"""A snapshot taken apart for a restore: its manifest authenticated and every part checked
before anything is written, its parts read back decrypted (and checked again), its objects
restored (each checked as it is written and read back), and what was restored verified: the
file index against storage, the audit chain and its head against the manifest's."""

from __future__ import annotations

import hashlib
import json
from collections.abc import AsyncIterable, AsyncIterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from pyrage import x25519

from bff.audit.repository import HEAD as AUDIT_HEAD
from bff.backup.copying import (
    COPY_CONCURRENCY,
    ObjectMismatch,
    Say,
    bounded,
    copy_object,
)
from bff.backup.crypto import CipherError, decrypt, load_identity
from bff.backup.snapshot import (
    OBJECT_LIST,
    Hashed,
    SnapshotError,
    read_lines,
    read_manifest,
)
from bff.files.reindex import index_differences, is_file_key
from bff.files.repository import INDEX_ROWS
from config.settings import Settings
from storage.base import NotFound, ObjectKey, Storage


@dataclass
class RestoreReport:
    """What a restore did and what its checks found."""

    tables: dict[str, int] = field(default_factory=dict)
    objects: int = 0
    object_bytes: int = 0
    audit_entries: int = 0
    snapshot: str = ""
    ended: dict[str, int] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        rows = sum(self.tables.values())
        ended = ", ".join(f"{count} {name.replace('_', ' ')}" for name, count in self.ended.items())
        lines = [
            f"Snapshot {self.snapshot}: manifest authenticated, every part's checksum matches",
            f"Database: {len(self.tables)} tables, {rows} rows restored",
            *(f"  {name}: {count}" for name, count in sorted(self.tables.items())),
            f"Signed out: every session the snapshot held was ended ({ended}): "
            "everyone signs in again.",
            f"Objects: {self.objects} restored ({self.object_bytes} bytes)",
            f"Audit log: {self.audit_entries} entries verified",
        ]
        if self.problems:
            return [*lines, f"RESTORE FAILED: {len(self.problems)} problems", *self.problems]
        return [*lines, "Restore verified: every checksum, the file index and the audit chain."]


@dataclass(frozen=True)
class OpenedSnapshot:
    """A snapshot whose manifest is authentic, and the identity that decrypts it."""

    storage: Storage
    manifest: dict[str, Any]
    identity: x25519.Identity

    def decrypt(self, chunks: AsyncIterable[bytes]) -> AsyncIterator[bytes]:
        return decrypt(chunks, self.identity)


def restore_mac_key(settings: Settings) -> bytes:
    """The backup key to authenticate a snapshot with (never a newly generated one)."""
    if not settings.backup_key and not (settings.var_dir / "backup_key").exists():
        raise SnapshotError(
            "This deployment has no backup key (BFF_BACKUP_KEY, or var/backup_key): set "
            "BFF_BACKUP_KEY to the key of the deployment that wrote the snapshot."
        )
    return settings.backup_mac_key()


async def open_snapshot(
    settings: Settings, snapshot: Storage, identity_file: str | None, say: Say
) -> OpenedSnapshot:
    """Authenticate the snapshot before anything is written: its manifest's HMAC, the identity
    against the recipient it was encrypted to, and every part's SHA-256."""
    manifest = await read_manifest(snapshot, restore_mac_key(settings))
    path = Path(identity_file) if identity_file else settings.backup_identity_path()
    try:
        identity = load_identity(path)
    except CipherError as exc:
        raise SnapshotError(
            f"{exc} A restore needs the identity (private key) the snapshot is encrypted to: "
            "give its file with --identity FILE or BFF_BACKUP_IDENTITY_FILE."
        ) from None
    wanted = manifest["encryption"]["recipient"]
    if str(identity.to_public()) != wanted:
        raise SnapshotError(
            f"The snapshot is encrypted to {wanted}, the identity in {path} is that of "
            f"{identity.to_public()}: give the matching identity with --identity FILE."
        )
    say(f"Snapshot {manifest['snapshotId']} of {manifest['createdAt']}: checking its parts ...")
    for name, expected in sorted(manifest["parts"].items()):
        try:
            stream = await snapshot.open_object(ObjectKey.parse(name))
        except NotFound:
            raise SnapshotError(f"The snapshot has no {name}.") from None
        async with stream:
            hashed = Hashed(stream)
            async for _ in hashed:
                pass
        _check_part(name, hashed, expected)
    return OpenedSnapshot(snapshot, manifest, identity)


def _check_part(name: str, hashed: Hashed, expected: dict[str, Any]) -> None:
    """SnapshotError unless a part's bytes are those the authenticated manifest lists."""
    if hashed.digest != expected["sha256"] or hashed.size != expected["size"]:
        raise SnapshotError(_changed(name))


def _changed(name: str) -> str:
    return (
        f"{name} does not match its checksum in the manifest: it was changed or replaced "
        "after the backup."
    )


async def kept_aside(snapshot: OpenedSnapshot, name: str, spool: Storage) -> OpenedSnapshot:
    """A copy of part `name` in spool (a local scratch storage), its SHA-256 checked as it is
    copied (SnapshotError if it differs: it changed since the check before the restore began),
    and the snapshot reading its parts from there: what a restore then reads of it is what it
    checked, whatever happens to the snapshot meanwhile."""
    expected = snapshot.manifest["parts"].get(name)
    if expected is None:
        raise SnapshotError(f"The manifest does not list {name}.")
    try:
        await copy_object(snapshot.storage, name, spool, name, expected=expected)
    except NotFound:
        raise SnapshotError(f"The snapshot has no {name}.") from None
    except ObjectMismatch:
        raise SnapshotError(_changed(name)) from None
    return replace(snapshot, storage=spool)


async def part_lines(snapshot: OpenedSnapshot, name: str) -> AsyncIterator[Any]:
    """The lines of one part, decrypted, its SHA-256 checked again at its end (SnapshotError
    if it differs: it changed since the check before the restore began)."""
    expected = snapshot.manifest["parts"].get(name)
    if expected is None:
        raise SnapshotError(f"The manifest does not list {name}.")
    try:
        stream = await snapshot.storage.open_object(ObjectKey.parse(name))
    except NotFound:
        raise SnapshotError(f"The snapshot has no {name}.") from None
    async with stream:
        hashed = Hashed(stream)
        try:
            async for line in read_lines(snapshot.decrypt(hashed)):
                yield line
        except CipherError as exc:
            raise SnapshotError(f"{name} does not decrypt ({exc}).") from None
    _check_part(name, hashed, expected)


async def load_objects(
    snapshot: OpenedSnapshot, listing: OpenedSnapshot, files: Storage, report: RestoreReport
) -> None:
    """Copy every object the object list (read from `listing`: `kept_aside`) names from the
    snapshot into files, each checked as it is written and read back."""
    manifest = snapshot.manifest

    async def entries() -> AsyncIterator[dict[str, Any]]:
        async for entry in part_lines(listing, OBJECT_LIST):
            yield entry

    async def restore_one(entry: dict[str, Any]) -> None:
        key = entry["key"]
        try:
            await copy_object(
                snapshot.storage,
                entry["stored"],
                files,
                key,
                before=snapshot.decrypt,
                content_type=entry["contentType"],
                expected=entry,  # a changed object fails its write: it never lands
            )
        except NotFound:
            report.problems.append(f"object missing from the snapshot: {key}")
            return
        except CipherError:
            report.problems.append(f"object does not decrypt (changed in the snapshot): {key}")
            return
        except ObjectMismatch:
            report.problems.append(f"object does not match its checksum in the snapshot: {key}")
            return
        # Read back what the target holds.
        async with await files.open_object(ObjectKey.parse(key)) as stream:
            sha = hashlib.sha256()
            async for chunk in stream:
                sha.update(chunk)
        if sha.hexdigest() != entry["sha256"]:
            report.problems.append(f"object restored wrongly (checksum differs): {key}")
            return
        report.objects += 1
        report.object_bytes += int(entry["size"])

    await bounded(entries(), restore_one, COPY_CONCURRENCY)
    expected = manifest["storage"]["objects"]
    if report.objects != expected and not report.problems:
        report.problems.append(f"{report.objects} objects restored, the manifest says {expected}")


async def verify_restored(files: Storage, manifest: dict[str, Any], report: RestoreReport) -> None:
    """The file index against storage, and the audit chain and its head."""
    from bff.audit.integrity import verify_log
    from bff.db import fetch as target_query

    stored = {i.name: i.size async for i in files.walk() if is_file_key(i.name)}
    report.problems += index_differences(await target_query(INDEX_ROWS), stored)
    verification = await verify_log(files)  # the chain and every checkpoint, as `audit verify`
    report.audit_entries, broken = verification.count, verification.broken
    if broken is not None:
        report.problems.append(f"audit log broken at entry {broken.entry_id}: {broken.reason}")
    head = await target_query(AUDIT_HEAD)
    found = {"id": int(head[0]["id"]), "hash": head[0]["hash"]} if head else None
    if found != manifest["auditHead"]:
        report.problems.append(
            f"audit chain head {json.dumps(found)} differs from the snapshot's "
            f"{json.dumps(manifest['auditHead'])}"
        )
