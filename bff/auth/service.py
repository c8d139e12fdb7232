"""Sign-in: constant-cost password check, throttling, session creation, audit."""

from __future__ import annotations

from bff.audit.service import Actor, record, record_alone
from bff.auth.passwords import verify_password
from bff.auth.sessions import open_session, user_claims
from bff.auth.throttle import LoginThrottle
from bff.db import transaction
from bff.errors import ApiError
from bff.users import repository as users
from config.settings import Settings

LOGIN_FAILED = "Invalid username or password."


async def login(
    username: str, password: str, address: str, settings: Settings, throttle: LoginThrottle
) -> tuple[str, dict[str, object]]:
    """Check credentials and open a session; every outcome is audited."""
    username = username.strip().lower()
    async with throttle.attempt(username, address) as attempt:  # counted before the check
        user = await users.user_by_username(username)
        stored = user.password_hash if user else None
        ok = await verify_password(stored, password, queue=attempt.known)
        if user is None or not ok:
            await record_alone(Actor(None, username[:100], "", address), "login_failed")
            raise ApiError(401, LOGIN_FAILED)
        await attempt.succeeded()
    async with transaction() as conn:
        token = await open_session(user, settings, address, conn)
        await record(conn, Actor(user.id, user.name, user.role.value, address), "login")
    return token, user_claims(user)
