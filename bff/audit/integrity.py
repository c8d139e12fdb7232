"""The audit log's integrity: verifying the keyed chain, and signed checkpoints kept in the file
storage, outside the database, under the reserved prefix `.bff-audit/`.

A checkpoint records the newest entry's id and hash, how many entries the log held up to it,
the last unkeyed entry (`audit_legacy`) and the time, signed with a key derived from the audit
key. It is self-contained JSON (a backup copied elsewhere verifies with the same key), written
as `.bff-audit/checkpoints/{last id}.json` and copied to `.bff-audit/latest.json`. Someone who
can write to the database but has no key can neither recompute the chain after an edit nor
move a checkpoint, so deleting the newest entries, editing, inserting or reordering any entry
up to the latest checkpoint is found. Entries after it are checked by the chain alone.

The running server writes one every BFF_AUDIT_CHECKPOINT_MINUTES when there are new entries
(one instance at a time: the `audit-checkpoint` lease), verifying the entries since the
previous one first; a break it finds is kept as a signed `.bff-audit/alert.json` the web app
shows until an operator has dealt with it.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from bff.audit import repository
from bff.audit.models import AuditLog
from bff.audit.service import GENESIS_HASH, audit_keys, entry_hash, legacy_entry_hash
from bff.leases import Periodic, leased
from config.settings import Settings
from storage.base import NotFound, Storage

log = logging.getLogger(__name__)

PREFIX = ".bff-audit"
CHECKPOINTS = f"{PREFIX}/checkpoints"
LATEST = f"{PREFIX}/latest.json"
ALERT = f"{PREFIX}/alert.json"
FORMAT = "bff-audit-checkpoint/1"
CHECKPOINT_LEASE = "audit-checkpoint"
_MAX_OBJECT = 64 * 1024  # a checkpoint is ~400 bytes: refuse to read a planted giant
_BATCH = 2000  # entries read per query while verifying


@dataclass(frozen=True)
class Checkpoint:
    """Where the log stood at a moment, as a signed checkpoint records it."""

    last_id: int
    last_hash: str
    count: int
    legacy_last_id: int
    time: datetime

    def body(self) -> dict[str, Any]:
        """The signed content."""
        return {
            "format": FORMAT,
            "lastId": self.last_id,
            "lastHash": self.last_hash,
            "count": self.count,
            "legacyLastId": self.legacy_last_id,
            "time": self.time.astimezone(UTC).isoformat(timespec="microseconds"),
        }


@dataclass(frozen=True)
class Break:
    """The first entry where the log stops being what it was."""

    entry_id: int
    reason: str


def _sign(body: dict[str, Any]) -> str:
    message = json.dumps(body, sort_keys=True, separators=(",", ":")).encode()
    return hmac.new(audit_keys().checkpoints, message, hashlib.sha256).hexdigest()


def _signed(body: dict[str, Any]) -> bytes:
    return json.dumps({"body": body, "signature": _sign(body)}, indent=1).encode() + b"\n"


def _unsigned(data: bytes) -> dict[str, Any] | None:
    """The body of a signed object, or None if it is not one or its signature does not match."""
    try:
        document = json.loads(data)
        body, signature = document["body"], document["signature"]
        if not isinstance(body, dict) or not isinstance(signature, str):
            return None
    except (ValueError, KeyError, TypeError):
        return None
    return body if hmac.compare_digest(_sign(body), signature) else None


def _checkpoint(body: dict[str, Any]) -> Checkpoint | None:
    try:
        if body["format"] != FORMAT:
            return None
        return Checkpoint(
            last_id=int(body["lastId"]),
            last_hash=str(body["lastHash"]),
            count=int(body["count"]),
            legacy_last_id=int(body["legacyLastId"]),
            time=datetime.fromisoformat(body["time"]),
        )
    except (KeyError, TypeError, ValueError):
        return None


def checkpoint_key(last_id: int) -> str:
    """The object key of the checkpoint at entry last_id (sorts by id as text)."""
    return f"{CHECKPOINTS}/{last_id:020d}.json"


async def _read(storage: Storage, key: str) -> bytes | None:
    """A small object's bytes (None if absent; at most _MAX_OBJECT + 1 bytes are read)."""
    try:
        stream = await storage.open_object(key, length=_MAX_OBJECT + 1)
    except NotFound:
        return None
    async with stream:
        return b"".join([chunk async for chunk in stream])


async def _write(storage: Storage, key: str, data: bytes) -> None:
    async def chunks() -> AsyncIterator[bytes]:
        yield data

    await storage.write_object(key, chunks(), content_type="application/json")


async def read_checkpoints(storage: Storage) -> tuple[list[Checkpoint], list[Break]]:
    """Every checkpoint in the storage, oldest first, and a break for each one that was altered
    (its signature does not match, or its name and content disagree)."""
    checkpoints: list[Checkpoint] = []
    altered: list[Break] = []
    async for info in storage.walk(CHECKPOINTS):
        stem = info.name.rsplit("/", 1)[-1].removesuffix(".json")
        named_id = int(stem) if stem.isdigit() else 0
        data = await _read(storage, info.name)
        body = _unsigned(data or b"")
        checkpoint = _checkpoint(body) if body is not None else None
        if checkpoint is None or checkpoint.last_id != named_id:
            altered.append(
                Break(named_id, f"checkpoint {info.name} was altered (signature does not match)")
            )
        else:
            checkpoints.append(checkpoint)
    checkpoints.sort(key=lambda c: c.last_id)
    return checkpoints, altered


@dataclass
class Walk:
    """Where a walk along the chain ended."""

    last_id: int
    last_hash: str
    count: int
    broken: Break | None = None


async def _entries(after_id: int, up_to: int | None) -> AsyncIterator[AuditLog]:
    """Entries after after_id (up to up_to), oldest first, a batch in memory at a time."""
    while True:
        rows = await repository.entries_after(after_id, _BATCH, up_to)
        if not rows:
            return
        for row in rows:
            yield row
        after_id = rows[-1].id


async def walk_chain(
    start: Walk, legacy_last_id: int, checkpoints: list[Checkpoint], up_to: int | None = None
) -> Walk:
    """Check every entry after start (up to entry up_to) against the one before it, its hash
    (unkeyed up to legacy_last_id, keyed after) and each checkpoint after start; stop at the
    first break. Streams: memory does not grow with the log."""
    key = audit_keys().entries
    pending = iter([c for c in checkpoints if c.last_id > start.last_id])
    due = next(pending, None)
    walk = Walk(start.last_id, start.last_hash, start.count)
    async for entry in _entries(start.last_id, up_to):
        if entry.prev_hash != walk.last_hash:
            walk.broken = Break(
                entry.id,
                f"does not link to the entry before it ({walk.last_id or 'none'}): an entry "
                "between them was deleted, or one of them was inserted or changed",
            )
            return walk
        legacy = entry.id <= legacy_last_id
        expected = (
            legacy_entry_hash(walk.last_hash, entry)
            if legacy
            else entry_hash(walk.last_hash, entry, key)
        )
        if not hmac.compare_digest(expected, entry.hash):
            walk.broken = Break(
                entry.id, "its content does not match its hash (changed, or forged without the key)"
            )
            return walk
        if due is not None and due.last_id < entry.id:
            walk.broken = Break(
                due.last_id, f"missing: the checkpoint of {_when(due)} recorded this entry"
            )
            return walk
        walk.count += 1
        walk.last_id, walk.last_hash = entry.id, entry.hash
        if due is not None and due.last_id == entry.id:
            if due.last_hash != entry.hash or due.count != walk.count:
                walk.broken = Break(
                    entry.id,
                    f"differs from the checkpoint of {_when(due)} ({due.count} entries up to "
                    f"it then, {walk.count} now)",
                )
                return walk
            due = next(pending, None)
    if due is not None and (up_to is None or due.last_id <= up_to):
        walk.broken = Break(
            walk.last_id + 1,
            f"missing: the checkpoint of {_when(due)} recorded {due.count} entries up to entry "
            f"{due.last_id}; the log ends at entry {walk.last_id or 'none'} after {walk.count}",
        )
    return walk


def _when(checkpoint: Checkpoint) -> str:
    return checkpoint.time.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


GENESIS = Walk(0, GENESIS_HASH, 0)


async def verify_chain() -> tuple[int, Break | None]:
    """The chain alone from the first entry: how many entries verified, and the first break."""
    walk = await walk_chain(GENESIS, await repository.legacy_last_id(), [])
    return walk.count, walk.broken


@dataclass(frozen=True)
class Verification:
    """What `audit verify` found."""

    count: int  # entries verified (up to the break, if any)
    broken: Break | None
    checkpoints: int  # valid checkpoints checked
    latest: Checkpoint | None
    after_latest: int  # entries after the latest checkpoint (checked by the chain alone)


async def verify_log(storage: Storage) -> Verification:
    """Check the whole chain and every checkpoint; the first break by entry id, if any."""
    checkpoints, altered = await read_checkpoints(storage)
    legacy_last_id = await repository.legacy_last_id()
    breaks = list(altered)
    for checkpoint in checkpoints:
        if checkpoint.legacy_last_id != legacy_last_id:
            first = min(checkpoint.legacy_last_id, legacy_last_id) + 1
            breaks.append(Break(first, "the boundary between unkeyed and keyed entries moved"))
    walk = await walk_chain(GENESIS, legacy_last_id, checkpoints)
    if walk.broken is not None:
        breaks.append(walk.broken)
    latest = checkpoints[-1] if checkpoints else None
    return Verification(
        count=walk.count,
        broken=min(breaks, key=lambda b: b.entry_id) if breaks else None,
        checkpoints=len(checkpoints),
        latest=latest,
        after_latest=walk.count - (latest.count if latest else 0),
    )


async def latest_checkpoint(storage: Storage) -> tuple[Checkpoint | None, bool]:
    """The latest checkpoint, and whether the copy in the storage was altered."""
    data = await _read(storage, LATEST)
    if data is None:
        return None, False
    body = _unsigned(data)
    checkpoint = _checkpoint(body) if body is not None else None
    return checkpoint, checkpoint is None


@dataclass(frozen=True)
class Alert:
    """A break the periodic verification found."""

    entry_id: int
    reason: str
    found_at: datetime


async def read_alert(storage: Storage) -> Alert | None:
    """The break the periodic verification found, if any (an altered alert is one too)."""
    data = await _read(storage, ALERT)
    if data is None:
        return None
    body = _unsigned(data)
    try:
        assert body is not None
        return Alert(
            int(body["entryId"]), str(body["reason"]), datetime.fromisoformat(body["foundAt"])
        )
    except (AssertionError, KeyError, TypeError, ValueError):
        return Alert(0, "the verification alert itself was altered", datetime.now(UTC))


@dataclass(frozen=True)
class CheckpointResult:
    """What one checkpoint run did."""

    written: Checkpoint | None = None  # the new checkpoint
    unchanged: Checkpoint | None = None  # no new entries since this one
    broken: Break | None = None  # the verification since the previous checkpoint failed
    busy: bool = False  # another process holds the lease


async def write_checkpoint(storage: Storage, lease_seconds: float = 600) -> CheckpointResult:
    """Verify the entries since the latest checkpoint, then sign and store a new one at the
    newest entry (nothing if there is none new); a break is kept as the alert instead. One
    process at a time."""
    async with leased(CHECKPOINT_LEASE, lease_seconds) as held:
        if not held:
            return CheckpointResult(busy=True)
        latest, altered = await latest_checkpoint(storage)
        head = await repository.head()
        broken: Break | None = None
        walk = GENESIS  # replaced by the walk since the latest checkpoint below
        if altered:
            broken = Break(0, f"{LATEST} was altered (its signature does not match)")
        elif head is None and latest is None:
            return CheckpointResult()
        elif latest is not None and (head is None or head[0] < latest.last_id):
            last = head[0] if head else 0
            broken = Break(
                last + 1,
                f"missing: the checkpoint of {_when(latest)} recorded "
                f"entries up to {latest.last_id}; the log ends at entry {last}",
            )
        elif latest is not None and head is not None and head[0] == latest.last_id:
            if head[1] != latest.last_hash:
                broken = Break(head[0], f"differs from the checkpoint of {_when(latest)}")
            else:
                return CheckpointResult(unchanged=latest)
        if broken is None:
            assert head is not None
            legacy_last_id = await repository.legacy_last_id()
            start = Walk(latest.last_id, latest.last_hash, latest.count) if latest else GENESIS
            if latest is not None and latest.legacy_last_id != legacy_last_id:
                broken = Break(
                    min(latest.legacy_last_id, legacy_last_id) + 1,
                    "the boundary between unkeyed and keyed entries moved",
                )
            else:
                walk = await walk_chain(start, legacy_last_id, [], up_to=head[0])
                broken = walk.broken
        if broken is not None:
            await _raise_alert(storage, broken)
            return CheckpointResult(broken=broken)
        checkpoint = Checkpoint(
            walk.last_id, walk.last_hash, walk.count, legacy_last_id, datetime.now(UTC)
        )
        data = _signed(checkpoint.body())
        await _write(storage, checkpoint_key(checkpoint.last_id), data)
        await _write(storage, LATEST, data)
        return CheckpointResult(written=checkpoint)


async def _raise_alert(storage: Storage, broken: Break) -> None:
    current = await read_alert(storage)
    if current is not None and current.entry_id == broken.entry_id:
        return  # already raised: keep when it was first found
    log.error("Audit log verification failed at entry %d: %s", broken.entry_id, broken.reason)
    body = {
        "entryId": broken.entry_id,
        "reason": broken.reason,
        "foundAt": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    await _write(storage, ALERT, _signed(body))


def checkpointer(storage: Storage, settings: Settings) -> Periodic:
    """A checkpoint every BFF_AUDIT_CHECKPOINT_MINUTES, the first one interval after start."""
    interval = settings.audit_checkpoint_minutes * 60
    lease = max(60.0, 2 * interval)
    return Periodic(
        interval,
        [("Audit checkpoint", lambda: write_checkpoint(storage, lease))],
        at_start=False,
    )
