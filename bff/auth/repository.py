"""Reads and writes of sign-in sessions."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from tortoise.backends.base.client import BaseDBAsyncClient

from bff.auth.models import Session
from bff.db import as_datetime, dialect, fetch

# Every request without a cached session runs this: plain SQL, not built by the ORM each time.
SESSION_QUERY = (
    "SELECT s.expires_at, s.restricted, u.id, u.name, u.username, u.role, u.intake "
    "FROM sessions s "
    "JOIN users u ON u.id = s.user_id WHERE s.id = ?"
)


async def session_with_user(session_id: str) -> dict[str, Any] | None:
    """A session's expiry with its user's id, name, username, role and intake permission, or
    None."""
    rows = await fetch(SESSION_QUERY, session_id)
    return rows[0] if rows else None


async def sessions_expiring(session_ids: list[str]) -> dict[str, Any]:
    """The expiry of each of session_ids that has a row, in one query with one parameter
    (however many sessions: a process re-checks every session it holds live connections of)."""
    if dialect() == "postgres":
        sql = "SELECT id, expires_at FROM sessions WHERE id = ANY(?::varchar[])"
        param: Any = session_ids
    else:
        sql = "SELECT id, expires_at FROM sessions WHERE id IN (SELECT value FROM json_each(?))"
        param = json.dumps(session_ids)
    return {row["id"]: row["expires_at"] for row in await fetch(sql, param)}


async def create_session(
    conn: BaseDBAsyncClient | None,
    session_id: str,
    user_id: int,
    expires_at: datetime,
    client_address: str,
    now: datetime,
    restricted: bool = False,
) -> None:
    """Insert a session, sweeping the user's expired ones so the table does not grow without
    bound."""
    await Session.filter(user_id=user_id, expires_at__lt=now).using_db(conn).delete()
    await Session.create(
        id=session_id,
        user_id=user_id,
        expires_at=expires_at,
        client_address=client_address,
        restricted=restricted,
        authenticated_at=now,
        using_db=conn,
    )


async def authenticated_at(session_id: str) -> datetime | None:
    """When a session last proved its password or a factor, read from the database (never
    from a cache: a confirmation on another instance counts at once), or None."""
    rows = await fetch("SELECT authenticated_at FROM sessions WHERE id = ?", session_id)
    value = rows[0]["authenticated_at"] if rows else None
    return None if value is None else as_datetime(value)


async def set_authenticated_at(session_id: str, at: datetime) -> bool:
    """Record that a session proved its password or a factor at `at`; False when it has ended."""
    return int(await Session.filter(id=session_id).update(authenticated_at=at)) == 1


async def delete_session(conn: BaseDBAsyncClient | None, session_id: str) -> None:
    """Delete one session."""
    await Session.filter(id=session_id).using_db(conn).delete()


async def delete_user_sessions(conn: BaseDBAsyncClient | None, user_id: int) -> int:
    """Delete every session of a user; return how many there were."""
    return int(await Session.filter(user_id=user_id).using_db(conn).delete())


async def delete_other_sessions(
    conn: BaseDBAsyncClient | None, user_id: int, keep: str | None
) -> list[str]:
    """Delete every session of a user but `keep`; return the ids deleted."""
    query = Session.filter(user_id=user_id)
    if keep is not None:
        query = query.exclude(id=keep)
    ids = [str(sid) for sid in await query.using_db(conn).values_list("id", flat=True)]
    if ids:
        await Session.filter(id__in=ids).using_db(conn).delete()
    return ids
