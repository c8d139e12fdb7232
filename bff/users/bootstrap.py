"""Creating the first admin on first start; creating users and resetting passwords from the
command line."""

from __future__ import annotations

from tortoise.exceptions import IntegrityError

from bff.audit.service import Actor, record
from bff.auth.password_rule import generated_password, hash_new_password
from bff.auth.sessions import end_all_sessions
from bff.db import transaction
from bff.errors import ApiError
from bff.live.events import ADMINS, USERS_CHANGED, publish
from bff.naming import username_error, username_spelling
from bff.users import repository
from bff.users.models import Role, User
from config.settings import Settings

SYSTEM = Actor(None, "system", "", "")


async def create_user(
    name: str, username: str, role: Role, password: str, min_length: int, actor: Actor = SYSTEM
) -> User:
    """Create a user of any role (including admin), audited and announced; ApiError 400 when
    the username breaks naming.py's rule (in its one spelling: NFKC, case-folded) or the
    password does not follow the rule (bff/auth/password_rule.py)."""
    spelling = username_spelling(username)
    if error := username_error(spelling):  # !a: a look-alike letter shows as \u0430
        raise ApiError(400, f"{username!a} cannot be a username. {error}")
    username = spelling
    password_hash = await hash_new_password(password, min_length, (username, name))
    async with transaction() as conn:
        user = await repository.create_user(conn, name, username, role, password_hash)
        await record(conn, actor, "user_create", details=f"user={user.username} role={role}")
        publish(USERS_CHANGED, {"userId": user.id}, [ADMINS])
    return user


async def ensure_admin(settings: Settings) -> tuple[str, str | None] | None:
    """Create the first admin when there is none: (username, generated password or None)."""
    if await repository.any_admin():
        return None
    min_length = settings.password_min_length
    generated = None if settings.admin_password else generated_password(min_length)
    password = settings.admin_password or generated or ""
    try:
        await create_user(
            "Administrator", settings.admin_username, Role.ADMIN, password, min_length
        )
    except ApiError as exc:  # BFF_ADMIN_PASSWORD does not follow the rule: say so and stop
        raise RuntimeError(f"BFF_ADMIN_PASSWORD cannot be used: {exc.message}") from None
    except IntegrityError:  # another worker won the race, or the username is taken
        return None
    return settings.admin_username, generated  # in its one spelling (config/checks.py)


async def reset_password(username: str, password: str, min_length: int) -> tuple[str, int] | None:
    """Set a user's password and end all their sessions, audited: (username, sessions ended),
    or None when no user has that username; ApiError 400 when the password does not follow
    the rule."""
    user = await repository.user_by_username(username_spelling(username))
    if user is None:
        return None
    user.password_hash = await hash_new_password(password, min_length, (user.username, user.name))
    async with transaction() as conn:
        await repository.save_user(conn, user, ["password_hash", "updated_at"])
        ended = await end_all_sessions(user.id, conn, reason="password-changed")
        await record(conn, SYSTEM, "password_reset", details=f"user={user.username}")
    return user.username, ended
