"""Walking the audit log's keyed chain: every entry against the one before it, its hash (unkeyed
up to the last legacy entry, keyed after) and the checkpoints it passes, streamed a batch at a
time so that memory does not grow with the log.
"""

from __future__ import annotations

import hmac
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from bff.audit import repository
from bff.audit.models import AuditLog
from bff.audit.service import GENESIS_HASH, audit_keys, entry_hash, legacy_entry_hash
from bff.audit.signed import Break, stamp

FORMAT = "bff-audit-checkpoint/1"
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

    @classmethod
    def from_body(cls, body: dict[str, Any]) -> Checkpoint | None:
        """The checkpoint a signed body records (None: it is not one)."""
        try:
            if body["format"] != FORMAT:
                return None
            return cls(
                last_id=int(body["lastId"]),
                last_hash=str(body["lastHash"]),
                count=int(body["count"]),
                legacy_last_id=int(body["legacyLastId"]),
                time=datetime.fromisoformat(body["time"]),
            )
        except (KeyError, TypeError, ValueError):
            return None


@dataclass
class Walk:
    """Where a walk along the chain ended."""

    last_id: int
    last_hash: str
    count: int
    broken: Break | None = None


GENESIS = Walk(0, GENESIS_HASH, 0)


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
                due.last_id, f"missing: the checkpoint of {stamp(due.time)} recorded this entry"
            )
            return walk
        walk.count += 1
        walk.last_id, walk.last_hash = entry.id, entry.hash
        if due is not None and due.last_id == entry.id:
            if due.last_hash != entry.hash or due.count != walk.count:
                walk.broken = Break(
                    entry.id,
                    f"differs from the checkpoint of {stamp(due.time)} ({due.count} entries up "
                    f"to it then, {walk.count} now)",
                )
                return walk
            due = next(pending, None)
    if due is not None and (up_to is None or due.last_id <= up_to):
        walk.broken = Break(
            walk.last_id + 1,
            f"missing: the checkpoint of {stamp(due.time)} recorded {due.count} entries up to "
            f"entry {due.last_id}; the log ends at entry {walk.last_id or 'none'} after "
            f"{walk.count}",
        )
    return walk


async def verify_chain() -> tuple[int, Break | None]:
    """The chain alone from the first entry: how many entries verified, and the first break."""
    walk = await walk_chain(GENESIS, await repository.legacy_last_id(), [])
    return walk.count, walk.broken
