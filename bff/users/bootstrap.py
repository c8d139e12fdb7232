"""Creating the first admin on first start; creating users and resetting passwords from the
command line."""

from __future__ import annotations

import secrets

from tortoise.exceptions import IntegrityError

from bff.audit.service import Actor, record
from bff.auth.passwords import hash_password
from bff.auth.sessions import end_all_sessions
from bff.db import transaction
from bff.live.events import ADMINS, USERS_CHANGED, publish
from bff.users import repository
from bff.users.models import Role, User
from config.settings import Settings

SYSTEM = Actor(None, "system", "", "")


async def create_user(
    name: str, username: str, role: Role, password: str, actor: Actor = SYSTEM
) -> User:
    """Create a user of any role (including admin), audited and announced."""
    password_hash = await hash_password(password)
    async with transaction() as conn:
        user = await repository.create_user(conn, name, username.lower(), role, password_hash)
        await record(conn, actor, "user_create", details=f"user={user.username} role={role}")
        publish(USERS_CHANGED, {"userId": user.id}, [ADMINS])
    return user


async def ensure_admin(settings: Settings) -> tuple[str, str | None] | None:
    """Create the first admin when there is none: (username, generated password or None)."""
    if await repository.any_admin():
        return None
    generated = None if settings.admin_password else secrets.token_urlsafe(18)
    password = settings.admin_password or generated or ""
    try:
        await create_user("Administrator", settings.admin_username, Role.ADMIN, password)
    except IntegrityError:  # another worker won the race, or the username is taken
        return None
    return settings.admin_username.lower(), generated


async def reset_password(username: str, password: str) -> tuple[str, int] | None:
    """Set a user's password and end all their sessions, audited: (username, sessions ended),
    or None when no user has that username."""
    user = await repository.user_by_username(username.lower())
    if user is None:
        return None
    user.password_hash = await hash_password(password)
    async with transaction() as conn:
        await repository.save_user(conn, user, ["password_hash", "updated_at"])
        ended = await end_all_sessions(user.id, conn)
        await record(conn, SYSTEM, "password_reset", details=f"user={user.username}")
    return user.username, ended
