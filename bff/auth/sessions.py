"""Session tokens: signed JWTs naming a database session row, checked on every request."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import jwt
from tortoise.backends.base.client import BaseDBAsyncClient

from bff.auth.models import Session
from bff.auth.session_cache import SessionCache
from bff.db import as_datetime, fetch
from bff.errors import ApiError
from bff.live.events import SESSION_REVOKED, publish, session_room, user_room
from bff.users.models import Role, User
from config.settings import Settings

ALGORITHM = "HS256"
# Every request without a cached session runs this: plain SQL, not built by the ORM each time.
SESSION_QUERY = (
    "SELECT s.expires_at, u.id, u.name, u.username, u.role FROM sessions s "
    "JOIN users u ON u.id = s.user_id WHERE s.id = ?"
)
SESSION_EXPIRED = "Your session has expired. Please log in again."
NOT_SIGNED_IN = "Authentication required. Please log in."


@dataclass(frozen=True)
class Principal:
    """The signed-in caller, read from the database on each request."""

    user_id: int
    name: str
    username: str
    role: Role
    session_id: str

    @property
    def is_admin(self) -> bool:
        """Whether the caller is an admin."""
        return self.role == Role.ADMIN


def user_claims(user: User) -> dict[str, Any]:
    """The user object a token carries (spec section 3)."""
    return {
        "userId": user.id,
        "id": user.id,
        "name": user.name,
        "username": user.username,
        "role": user.role.value,
    }


async def open_session(
    user: User, settings: Settings, client_address: str, conn: BaseDBAsyncClient | None = None
) -> str:
    """Create a session row for user and return its signed token."""
    now = datetime.now(UTC)
    expires = now + timedelta(hours=settings.session_hours)
    # Sweep this user's expired sessions so the table does not grow without bound.
    await Session.filter(user_id=user.id, expires_at__lt=now).using_db(conn).delete()
    session = await Session.create(
        id=secrets.token_hex(16),
        user=user,
        expires_at=expires,
        client_address=client_address,
        using_db=conn,
    )
    payload = {
        "sid": session.id,
        "sub": str(user.id),
        "user": user_claims(user),
        "iat": int(now.timestamp()),
        "exp": int(expires.timestamp()),
    }
    return jwt.encode(payload, settings.signing_key(), algorithm=ALGORITHM)


async def authenticate(
    token: str | None, settings: Settings, cache: SessionCache | None = None
) -> Principal:
    """The principal for a token, or 401 when it is missing, malformed, expired or revoked."""
    if not token:
        raise ApiError(401, NOT_SIGNED_IN)
    session_id = cache.token_session(token) if cache is not None else None
    if session_id is None:
        try:
            payload = jwt.decode(
                token,
                settings.signing_key(),
                algorithms=[ALGORITHM],
                options={"require": ["exp", "sid", "sub"]},
            )
        except jwt.PyJWTError:
            raise ApiError(401, SESSION_EXPIRED) from None
        session_id = payload.get("sid")
        if not isinstance(session_id, str):
            raise ApiError(401, SESSION_EXPIRED)
        if cache is not None:
            cache.remember_token(token, session_id, float(payload["exp"]))
    return await session_principal(session_id, cache)


async def session_principal(session_id: str, cache: SessionCache | None = None) -> Principal:
    """The principal of a live session, or 401 when it has ended or expired."""
    if cache is not None and (principal := cache.get(session_id)) is not None:
        return principal
    generation = cache.generation() if cache is not None else 0
    rows = await fetch(SESSION_QUERY, session_id)
    expires_at = as_datetime(rows[0]["expires_at"]) if rows else None
    if expires_at is None or expires_at <= datetime.now(UTC):
        raise ApiError(401, SESSION_EXPIRED)
    row = rows[0]
    principal = Principal(row["id"], row["name"], row["username"], Role(row["role"]), session_id)
    if cache is not None:
        cache.put(generation, principal, expires_at)
    return principal


async def end_session(session_id: str, conn: BaseDBAsyncClient | None = None) -> None:
    """Revoke one session (its live connections are told and closed once this commits)."""
    await Session.filter(id=session_id).using_db(conn).delete()
    publish(SESSION_REVOKED, {"reason": "logout"}, [session_room(session_id)])


async def end_all_sessions(
    user_id: int, conn: BaseDBAsyncClient | None = None, reason: str = "logout-all"
) -> int:
    """Revoke every session of a user; return how many ended (live connections are closed)."""
    ended = int(await Session.filter(user_id=user_id).using_db(conn).delete())
    publish(SESSION_REVOKED, {"reason": reason}, [user_room(user_id)])
    return ended
