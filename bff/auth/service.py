"""Sign-in: constant-cost password check, throttling, session creation, audit."""

from __future__ import annotations

from bff.audit.service import Actor, record, record_alone
from bff.auth.passwords import verify_password
from bff.auth.schemas import (
    EnrolmentLoginResponse,
    LoginResponse,
    MfaRequiredResponse,
    TokenUser,
)
from bff.auth.sessions import open_session, user_claims
from bff.auth.throttle import LoginThrottle
from bff.db import transaction
from bff.errors import ApiError
from bff.mfa import service as mfa
from bff.users import repository as users
from config.settings import Settings

LOGIN_FAILED = "Invalid username or password."


async def login(
    username: str, password: str, address: str, settings: Settings, throttle: LoginThrottle
) -> LoginResponse | MfaRequiredResponse:
    """Check credentials and open a session, or for a user with a second factor start the
    second step (bff/mfa/service.py); every outcome is audited."""
    username = username.strip().lower()
    async with throttle.attempt(username, address) as attempt:  # counted before the check
        user = await users.user_by_username(username)
        stored = user.password_hash if user else None
        # Asked before the password check, so a right password answers as soon as it is checked.
        second_step = user is not None and await mfa.has_factor(user.id)
        ok = await verify_password(stored, password, queue=attempt.known)
        if user is None or not ok:
            await record_alone(Actor(None, username[:100], "", address), "login_failed")
            raise ApiError(401, LOGIN_FAILED)
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
