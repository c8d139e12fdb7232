"""Writing and verifying the audit log.

Each entry's hash is SHA-256 over its content and the previous entry's hash, so editing or
deleting any row breaks the chain from that row on. Entries are written inside the caller's
transaction; on PostgreSQL an advisory transaction lock keeps the chain linear across processes.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime

from tortoise.backends.base.client import BaseDBAsyncClient

from bff.audit.models import AuditLog
from bff.audit.operations import OPERATIONS
from bff.db import fetch
from bff.live.events import ADMINS, AUDIT_CREATED, publish

GENESIS_HASH = "0" * 64
_CHAIN_LOCK_KEY = 7_318_204_551  # arbitrary, fixed: the advisory lock guarding the chain head


@dataclass(frozen=True)
class Actor:
    """Who did something, as the audit log records it."""

    user_id: int | None
    name: str
    role: str
    client_address: str


def _iso(ts: datetime) -> str:
    return ts.astimezone(UTC).isoformat(timespec="microseconds")


def entry_hash(prev_hash: str, entry: AuditLog) -> str:
    """The chained hash of an entry's content."""
    content = [
        prev_hash,
        _iso(entry.timestamp),
        entry.user_id,
        entry.name,
        entry.role,
        entry.operation,
        entry.container_name,
        entry.folder_name,
        entry.blob_name,
        entry.client_address,
        entry.details,
    ]
    encoded = json.dumps(content, separators=(",", ":"), ensure_ascii=False).encode()
    return hashlib.sha256(prev_hash.encode() + encoded).hexdigest()


# The chain's newest link, read under the chain lock by every audited request.
LAST_HASH = "SELECT hash FROM audit_logs ORDER BY id DESC LIMIT 1"


async def record(
    conn: BaseDBAsyncClient,
    actor: Actor,
    operation: str,
    *,
    container: str = "",
    folder: str = "",
    blob: str = "",
    details: str = "",
) -> AuditLog:
    """Append one entry inside the caller's transaction `conn`."""
    if operation not in OPERATIONS:  # a new operation must be listed (the web app filters by it)
        raise ValueError(
            f"Unknown audit operation {operation!r}: add it to bff/audit/operations.py"
        )
    if conn.capabilities.dialect == "postgres":
        await conn.execute_query("SELECT pg_advisory_xact_lock($1)", [_CHAIN_LOCK_KEY])
    last = await fetch(LAST_HASH, conn=conn)
    prev_hash = last[0]["hash"] if last else GENESIS_HASH
    entry = AuditLog(
        timestamp=datetime.now(UTC),
        user_id=actor.user_id,
        name=actor.name[:100],
        role=actor.role,
        operation=operation,
        container_name=container,
        folder_name=folder,
        blob_name=blob[:255],
        client_address=actor.client_address[:64],
        details=details[:500],
        prev_hash=prev_hash,
    )
    entry.hash = entry_hash(prev_hash, entry)
    await entry.save(using_db=conn)
    publish(AUDIT_CREATED, {"id": entry.id, "operation": operation}, [ADMINS])
    return entry


@dataclass(frozen=True)
class ChainBreak:
    """The first entry whose hash does not follow from the log before it."""

    entry_id: int
    reason: str


async def _entries(batch: int = 1000) -> AsyncIterator[AuditLog]:
    last_id = 0
    while True:
        rows = await AuditLog.filter(id__gt=last_id).order_by("id").limit(batch)
        if not rows:
            return
        for row in rows:
            yield row
        last_id = rows[-1].id


async def verify_chain() -> tuple[int, ChainBreak | None]:
    """Walk the whole log; return how many entries were checked and the first break, if any."""
    prev_hash = GENESIS_HASH
    count = 0
    async for entry in _entries():
        count += 1
        if entry.prev_hash != prev_hash:
            return count, ChainBreak(entry.id, "does not link to the entry before it")
        if entry_hash(prev_hash, entry) != entry.hash:
            return count, ChainBreak(entry.id, "content does not match its hash")
        prev_hash = entry.hash
    return count, None
