"""Sign-in: constant-cost password check, throttling, session creation, audit."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from bff.audit.service import Actor, record, record_alone
from bff.auth.passwords import verify_password
from bff.auth.schemas import (
    EnrolmentLoginResponse,
    LoginResponse,
    MfaRequiredResponse,
    TokenUser,
)
from bff.auth.sessions import open_session, user_claims
from bff.auth.throttle import Attempt, LoginThrottle, normal_username
from bff.db import transaction
from bff.errors import ApiError
from bff.mfa import signin as mfa
from bff.users import repository as users
from bff.users.models import User
from config.settings import Settings

LOGIN_FAILED = "Invalid username or password."


def password_refused(user_role: str, settings: Settings) -> str | None:
    """Why BFF_OIDC_LOCAL_PASSWORDS refuses this role a password sign-in, or None."""
    policy = settings.oidc_local_passwords
    if not settings.oidc_enabled or policy == "all":
        return None
    if policy == "admins" and user_role == "admin":
        return None
    return f"Sign in with {settings.oidc_display_name}."


@asynccontextmanager
async def checked_password(
    username: str, password: str, address: str, throttle: LoginThrottle, method: str = ""
) -> AsyncIterator[tuple[User, Attempt, bool]]:
    """The one password check (a sign-in, or linking an account to the identity provider:
    `method` says which in the audit entry of a failure), counted by the throttle before it:
    401, audited, for a wrong username or password; else the body runs with the user, the
    attempt (the body calls `succeeded` or gives it back) and whether the user has a second
    factor."""
    username = normal_username(username)  # the spelling the throttle counts, too
    async with throttle.attempt(username, address) as attempt:  # counted before the check
        user = await users.user_by_username(username)
        stored = user.password_hash if user else None
        # Asked before the password check, so a right password answers as soon as it is checked.
        second_step = user is not None and await mfa.has_factor(user.id)
        ok = await verify_password(stored, password, queue=attempt.known)
        if user is None or not ok:
            details = f"method={method}" if method else ""
            actor = Actor(None, username[:100], "", address)
            await record_alone(actor, "login_failed", details=details)
            raise ApiError(401, LOGIN_FAILED)
        yield user, attempt, second_step


async def login(
    username: str, password: str, address: str, settings: Settings, throttle: LoginThrottle
) -> LoginResponse | MfaRequiredResponse:
    """Check credentials and open a session, or for a user with a second factor start the
    second step (bff/mfa/service.py); every outcome is audited."""
    async with checked_password(username, password, address, throttle) as (
        user,
        attempt,
        second_step,
    ):
        refused = password_refused(user.role.value, settings)
        if refused is not None:  # the password was right: the attempt does not count
            await throttle.release(attempt)
            await record_alone(
                Actor(user.id, user.name, user.role.value, address),
                "login_failed",
                details="method=password reason=local_passwords_off",
            )
            raise ApiError(403, refused)
        if second_step:
            # Only the code's success starts the count afresh: wrong codes after right
            # passwords keep counting.
            await throttle.release(attempt)
        else:
            await attempt.succeeded()
    if second_step:
        mfa_token, methods = await mfa.start_second_step(user)
        return MfaRequiredResponse(mfaRequired=True, mfaToken=mfa_token, methods=methods)
    restricted = user.role.value in settings.mfa_roles
    async with transaction() as conn:
        token = await open_session(user, settings, address, conn, restricted=restricted)
        await record(conn, Actor(user.id, user.name, user.role.value, address), "login")
    claims = TokenUser.model_validate(user_claims(user))
    if restricted:
        return EnrolmentLoginResponse(token=token, user=claims, mfaEnrolmentRequired=True)
    return LoginResponse(token=token, user=claims)
