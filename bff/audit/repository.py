"""Reads and writes of the audit log: the chain's head, batch inserts, and entry queries."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from tortoise.backends.base.client import BaseDBAsyncClient

from bff.audit.models import AuditLog
from bff.db import dialect, fetch

_CHAIN_LOCK_KEY = 7_318_204_551  # arbitrary, fixed: the advisory lock guarding the chain head
# The chain's newest link, read under the chain lock by every append.
LAST_HASH = "SELECT hash FROM audit_logs ORDER BY id DESC LIMIT 1"
# The chain's head (id and hash), which a backup records and a restore checks.
HEAD = "SELECT id, hash FROM audit_logs ORDER BY id DESC LIMIT 1"
_COLUMNS = (
    "timestamp",
    "user_id",
    "name",
    "role",
    "operation",
    "container_name",
    "folder_name",
    "blob_name",
    "client_address",
    "details",
    "request_id",
    "prev_hash",
    "hash",
)
_INSERT = f"INSERT INTO audit_logs ({', '.join(_COLUMNS)}) VALUES "  # noqa: S608 - fixed names
_ROW = "(" + ", ".join("?" * len(_COLUMNS)) + ")"


async def lock_chain(conn: BaseDBAsyncClient) -> None:
    """Hold the chain head until transaction conn ends, across processes (PostgreSQL; SQLite
    has one writer)."""
    if dialect(conn) == "postgres":
        await conn.execute_query("SELECT pg_advisory_xact_lock($1)", [_CHAIN_LOCK_KEY])


async def last_hash(conn: BaseDBAsyncClient) -> str | None:
    """The newest entry's hash (None for an empty log)."""
    rows = await fetch(LAST_HASH, conn=conn)
    return str(rows[0]["hash"]) if rows else None


async def insert(conn: BaseDBAsyncClient, entries: list[AuditLog]) -> None:
    """Insert linked entries in one statement inside transaction conn, setting their ids."""
    params = [getattr(entry, column) for entry in entries for column in _COLUMNS]
    sql = _INSERT + ", ".join([_ROW] * len(entries)) + " RETURNING id, hash"
    ids = {row["hash"]: row["id"] for row in await fetch(sql, *params, conn=conn)}
    for entry in entries:  # RETURNING's row order is not promised: match them by hash
        entry.id = ids[entry.hash]


async def entries_after(last_id: int, count: int, up_to: int | None = None) -> list[AuditLog]:
    """Up to count entries after last_id (and up to entry up_to, if given), oldest first."""
    query = AuditLog.filter(id__gt=last_id)
    if up_to is not None:
        query = query.filter(id__lte=up_to)
    return await query.order_by("id").limit(count)


@dataclass(frozen=True)
class AuditFilter:
    """Which entries a query wants; every field given must match (AND).

    user, container, folder: case-insensitive substrings (of the actor's name, the container's,
    the folder's); folder_of: exactly this (container, folder), for a patient's access report.
    """

    operation: str | None = None
    user_id: int | None = None
    user: str | None = None
    container: str | None = None
    folder: str | None = None
    folder_of: tuple[str, str] | None = None
    since: datetime | None = None
    until: datetime | None = None


async def entries_page(
    where: AuditFilter,
    count: int,
    *,
    before_id: int | None = None,
    after_id: int | None = None,
    up_to_id: int | None = None,
    oldest_first: bool = False,
) -> list[AuditLog]:
    """Up to count entries matching where, newest first (or oldest first), after a cursor."""
    filters: dict[str, Any] = {
        "operation": where.operation,
        "user_id": where.user_id,
        "name__icontains": where.user or None,
        "container_name__icontains": where.container or None,
        "folder_name__icontains": where.folder or None,
        "timestamp__gte": where.since,
        "timestamp__lt": where.until,
        "id__lt": before_id,
        "id__gt": after_id,
        "id__lte": up_to_id,
    }
    if where.folder_of is not None:
        filters["container_name"], filters["folder_name"] = where.folder_of
    query = AuditLog.filter(**{k: v for k, v in filters.items() if v is not None})
    return await query.order_by("id" if oldest_first else "-id").limit(count)


async def legacy_last_id() -> int:
    """The last entry hashed without the audit key (0: every entry is keyed)."""
    rows = await fetch("SELECT last_id FROM audit_legacy WHERE id = 1")
    return int(rows[0]["last_id"]) if rows else 0


async def head() -> tuple[int, str] | None:
    """The newest committed entry's id and hash (None for an empty log)."""
    rows = await fetch("SELECT id, hash FROM audit_logs ORDER BY id DESC LIMIT 1")
    return (int(rows[0]["id"]), str(rows[0]["hash"])) if rows else None


async def hash_of(entry_id: int) -> str | None:
    """The hash of entry entry_id (None if there is no such entry)."""
    rows = await fetch("SELECT hash FROM audit_logs WHERE id = ?", entry_id)
    return str(rows[0]["hash"]) if rows else None


async def last_id_before(entry_id: int) -> int:
    """The newest entry's id below entry_id (0: none)."""
    rows = await fetch("SELECT MAX(id) AS last FROM audit_logs WHERE id < ?", entry_id)
    return int(rows[0]["last"] or 0) if rows else 0
