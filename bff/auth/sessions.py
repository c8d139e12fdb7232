"""Session tokens: signed JWTs naming a database session row, checked on every request."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import jwt
from tortoise.backends.base.client import BaseDBAsyncClient

from bff.auth import repository
from bff.auth.session_cache import SessionCache
from bff.db import as_datetime
from bff.errors import ApiError
from bff.live.events import SESSION_REVOKED, publish, session_room, user_room
from bff.users.models import Role, User
from bff.waits import stepping_aside
from config.settings import Settings

ALGORITHM = "HS256"
SESSION_EXPIRED = "Your session has expired. Please log in again."
NOT_SIGNED_IN = "Authentication required. Please log in."
ENROL_FIRST = "Set up a second factor before you continue."


@dataclass(frozen=True)
class Principal:
    """The signed-in caller, read from the database on each request."""

    user_id: int
    name: str
    username: str
    role: Role
    session_id: str
    expires_at: datetime | None = None  # when the session ends (live connections end then)
    restricted: bool = False  # may only set up a second factor (BFF_MFA_REQUIRED_ROLES)
    intake: bool = False  # granted the intake permission (users.intake; bff/intake/)

    @property
    def is_admin(self) -> bool:
        """Whether the caller is an admin."""
        return self.role == Role.ADMIN

    @property
    def may_intake(self) -> bool:
        """Whether the caller may use the intake: admins always, others when granted."""
        return self.is_admin or self.intake


def user_claims(user: User) -> dict[str, Any]:
    """The user object a token carries (spec section 3)."""
    return {
        "userId": user.id,
        "id": user.id,
        "name": user.name,
        "username": user.username,
        "role": user.role.value,
        # The intake permission (issue 51; admins always have it): the web app shows the Intake
        # page by it; the server checks the database's on every request (auth/policy.py).
        "intake": user.role is Role.ADMIN or user.intake,
    }


async def open_session(
    user: User,
    settings: Settings,
    client_address: str,
    conn: BaseDBAsyncClient | None = None,
    *,
    restricted: bool = False,
) -> str:
    """Create a session row for user and return its signed token; a restricted session may
    only set up a second factor (bff/auth/policy.py)."""
    now = datetime.now(UTC)
    expires = now + timedelta(hours=settings.session_hours)
    session_id = secrets.token_hex(16)
    await repository.create_session(
        conn, session_id, user.id, expires, client_address, now, restricted
    )
    payload = {
        "sid": session_id,
        "sub": str(user.id),
        "user": user_claims(user),
        "iat": int(now.timestamp()),
        "exp": int(expires.timestamp()),
    }
    if restricted:
        payload["mfaEnrolment"] = True  # the web app shows only the enrolment screen
    return jwt.encode(payload, settings.signing_key(), algorithm=ALGORITHM)


def session_id_of(token: str) -> str:
    """The session id inside a token open_session has just made (its signature not checked)."""
    return str(jwt.decode(token, options={"verify_signature": False})["sid"])


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
    async with stepping_aside():  # a live connection's set-up lets others use the CPU meanwhile
        row = await repository.session_with_user(session_id)
    expires_at = as_datetime(row["expires_at"]) if row else None
    if row is None or expires_at is None or expires_at <= datetime.now(UTC):
        raise ApiError(401, SESSION_EXPIRED)  # no such session, or an expired one
    principal = Principal(
        row["id"],
        row["name"],
        row["username"],
        Role(row["role"]),
        session_id,
        expires_at,
        bool(row["restricted"]),
        bool(row["intake"]),
    )
    if cache is not None:
        cache.put(generation, principal, expires_at)
    return principal


async def ended_sessions(session_ids: list[str]) -> set[str]:
    """Which of session_ids have ended (deleted, expired or never existed): one query."""
    if not session_ids:
        return set()
    now = datetime.now(UTC)
    alive = await repository.sessions_expiring(session_ids)
    return {sid for sid in session_ids if sid not in alive or as_datetime(alive[sid]) <= now}


async def end_session(session_id: str, conn: BaseDBAsyncClient | None = None) -> None:
    """Revoke one session (its live connections are told and closed once this commits)."""
    await repository.delete_session(conn, session_id)
    publish(SESSION_REVOKED, {"reason": "logout"}, [session_room(session_id)])


async def end_all_sessions(
    user_id: int, conn: BaseDBAsyncClient | None = None, reason: str = "logout-all"
) -> int:
    """Revoke every session of a user; return how many ended (live connections are closed)."""
    ended = await repository.delete_user_sessions(conn, user_id)
    publish(SESSION_REVOKED, {"reason": reason}, [user_room(user_id)])
    return ended


async def end_other_sessions(
    user_id: int, keep: str | None, conn: BaseDBAsyncClient | None = None, reason: str = ""
) -> int:
    """Revoke every session of a user but `keep` (the caller's own); return how many ended.
    Their live connections are told and closed, the kept session's are not."""
    ended = await repository.delete_other_sessions(conn, user_id, keep)
    if ended:
        publish(SESSION_REVOKED, {"reason": reason}, [session_room(sid) for sid in ended])
    return len(ended)
