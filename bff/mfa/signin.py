"""Proving a second factor: the second sign-in step (an authenticator code, a recovery code or a
passkey after the password) and the identity confirmation before a sensitive change (step-up).

Codes are checked under the sign-in throttle (bff/auth/throttle.py), counted per user and
address like passwords: a right password followed by wrong codes does not start the count
afresh. A TOTP code is accepted in the current 30-second step or one either side, and each step
once per user (`last_step`, one conditional update). Enrolment and removal: bff/mfa/service.py.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import urlsplit

import pyotp
from tortoise.exceptions import IntegrityError
from webauthn import (
    base64url_to_bytes,
    generate_authentication_options,
    options_to_json,
    verify_authentication_response,
)
from webauthn.helpers import bytes_to_base64url
from webauthn.helpers.exceptions import WebAuthnException
from webauthn.helpers.structs import (
    PublicKeyCredentialDescriptor,
    UserVerificationRequirement,
)

from bff.audit.service import Actor, record, record_alone
from bff.auth import stepup
from bff.auth.passwords import verify_password
from bff.auth.sessions import (
    Principal,
    open_session,
    session_id_of,
    user_claims,
)
from bff.auth.throttle import LoginThrottle
from bff.db import transaction
from bff.errors import ApiError
from bff.live.events import ADMINS, USERS_CHANGED, publish
from bff.mfa import repository
from bff.mfa.models import MfaChallenge
from bff.mfa.sealing import (
    SeedUnavailable,
    open_seed,
    recovery_hash,
)
from bff.oidc import repository as oidc_sessions
from bff.users import repository as users
from bff.users.models import User
from bff.users.service import find_user
from config.settings import Settings

MFA_TOKEN_SECONDS = 300  # the second step must follow the password within 5 minutes
TOTP_DIGITS = 6
MAX_CREDENTIAL_BYTES = 64 * 1024  # a WebAuthn credential's JSON, at most
MFA_EXPIRED = "Your sign-in has expired. Please sign in again."
CODE_WRONG = "That code is not right. Please try again."
CODE_REUSED = "That code has already been used. Wait for the next code and try again."
PASSKEY_FAILED = "That passkey could not be verified. Please try again."
NO_PASSKEYS = "No passkey is set up for this account."
IDENTITY_REQUIRED = "Enter a current code from your authenticator, or your password."
IDENTITY_WRONG = "That code or password is not right."
LINKED_MEANWHILE = "This account or sign-in was linked meanwhile. Please sign in again."
LINK_CODE_GONE = "The link code was used, replaced or withdrawn meanwhile. Ask an administrator."


def utc_now() -> datetime:
    return datetime.now(UTC)


def digest(value: str) -> str:
    return hashlib.sha256(value.encode()).hexdigest()


def actor_of(user: User | Principal, address: str) -> Actor:
    user_id = user.id if isinstance(user, User) else user.user_id
    return Actor(user_id, user.name, user.role.value, address)


def relying_party(settings: Settings) -> tuple[str, str]:
    """The WebAuthn relying party id (host) and origin, from BFF_PUBLIC_URL."""
    parts = urlsplit(settings.public_url)
    return parts.hostname or "localhost", f"{parts.scheme}://{parts.netloc}"


def matching_step(seed: str, code: str, at: float | None = None) -> int | None:
    """The TOTP time step (current, previous or next) whose code is `code`, or None."""
    code = code.strip().replace(" ", "")
    # isascii: "²" and Arabic-Indic digits are digits to Python, and hmac.compare_digest
    # refuses them (a 500).
    if len(code) != TOTP_DIGITS or not (code.isascii() and code.isdigit()):
        return None
    totp = pyotp.TOTP(seed)
    current = totp.timecode(datetime.fromtimestamp(at if at is not None else time.time(), UTC))
    for step in (current - 1, current, current + 1):
        if hmac.compare_digest(totp.generate_otp(step), code):
            return step
    return None


async def has_factor(user_id: int) -> bool:
    """Whether a user has a confirmed authenticator or a passkey."""
    return await repository.has_factor(user_id)


async def methods_of(user_id: int) -> list[str]:
    """The second-step methods a user can use, in a fixed order."""
    row = await repository.totp_of(user_id)
    methods = ["totp"] if row is not None and row.secret else []
    if await repository.passkeys_of(user_id):
        methods.append("webauthn")
    if await repository.recovery_codes_left(user_id):
        methods.append("recovery")
    return methods


@dataclass(frozen=True)
class ProviderSignIn:
    """A sign-in through the identity provider (bff/oidc/) that waits for the local second
    step: the session it opens is recorded as the provider's (its sign-out and back-channel
    logout reach it). `link`: the person proved the account's password, or entered the link
    code an admin issued for it (`link_code`: the code's hash, used up then), to link it to the
    provider's subject, and the link is made once the factor is proved too."""

    issuer: str
    subject: str
    provider_sid: str
    link: bool = False
    link_code: str = ""


async def start_second_step(
    user: User, origin: ProviderSignIn | None = None
) -> tuple[str, list[str]]:
    """After a right password (or a provider's sign-in without its MFA): a single-use mfaToken
    (5 minutes) and the user's methods."""
    token = secrets.token_urlsafe(32)
    now = utc_now()
    expires = now + timedelta(seconds=MFA_TOKEN_SECONDS)
    kept = json.dumps(origin.__dict__) if origin is not None else None
    await repository.create_challenge(digest(token), user.id, "login", expires, now, kept)
    return token, await methods_of(user.id)


@dataclass(frozen=True)
class SignedIn:
    """The result of a completed second step."""

    token: str
    user: dict[str, Any]


async def _pending_user(mfa_token: str) -> tuple[str, User, MfaChallenge]:
    """The challenge id, user and challenge row of a live mfaToken, or 401."""
    challenge_id = digest(mfa_token)
    challenge = await repository.live_challenge(challenge_id, "login", utc_now())
    user = await users.user_by_id(challenge.user_id) if challenge is not None else None
    if challenge is None or user is None:
        raise ApiError(401, MFA_EXPIRED)
    return challenge_id, user, challenge


async def _fail(user: User | Principal, address: str, method: str, message: str) -> ApiError:
    """Audit a wrong second factor and return the error to raise."""
    reason = "reused" if message == CODE_REUSED else "wrong"
    await record_alone(actor_of(user, address), "mfa_failed", details=f"method={method} {reason}")
    return ApiError(401, message)


async def check_totp(user: User | Principal, code: str, settings: Settings) -> str | None:
    """None when code is a fresh, right TOTP code of the user; else the error message."""
    user_id = user.id if isinstance(user, User) else user.user_id
    row = await repository.totp_of(user_id)
    if row is None or row.secret is None:
        return CODE_WRONG
    try:
        seed = open_seed(settings, user_id, row.secret)
    except SeedUnavailable:
        return CODE_WRONG
    step = matching_step(seed, code)
    if step is None:
        return CODE_WRONG
    if not await repository.use_step(user_id, step):
        return CODE_REUSED
    return None


async def check_code(user: User, code: str, settings: Settings) -> tuple[str, str | None]:
    """(method, error message or None) for a TOTP or recovery code."""
    digits = code.strip().replace(" ", "")
    if digits.isascii() and digits.isdigit():
        return "totp", await check_totp(user, code, settings)
    spent = await repository.use_recovery_code(user.id, recovery_hash(settings, user.id, code))
    return "recovery", None if spent else CODE_WRONG


def credential_json(credential: dict[str, Any]) -> dict[str, Any]:
    if len(json.dumps(credential)) > MAX_CREDENTIAL_BYTES:
        raise ApiError(413, "The passkey response is too large.")
    return credential


async def _check_passkey(
    user: User, assertion: dict[str, Any], challenge: str | None, settings: Settings
) -> str | None:
    """None when assertion is a valid passkey signature of the user over the issued challenge."""
    raw_id = assertion.get("rawId") or assertion.get("id")
    passkey = await repository.passkey_by_credential(str(raw_id)) if raw_id else None
    if passkey is None or passkey.user_id != user.id or challenge is None:
        return PASSKEY_FAILED
    rp_id, origin = relying_party(settings)
    try:
        verified = verify_authentication_response(
            credential=assertion,
            expected_challenge=base64url_to_bytes(challenge),
            expected_rp_id=rp_id,
            expected_origin=origin,
            credential_public_key=base64url_to_bytes(passkey.public_key),
            credential_current_sign_count=passkey.sign_count,
        )
    except (WebAuthnException, ValueError, KeyError, TypeError):
        return PASSKEY_FAILED
    await repository.passkey_used(passkey.id, verified.new_sign_count, utc_now())
    return None


async def complete_login(
    mfa_token: str,
    code: str | None,
    assertion: dict[str, Any] | None,
    address: str,
    settings: Settings,
    throttle: LoginThrottle,
) -> SignedIn:
    """The second step: a TOTP code, a recovery code or a passkey assertion for a live
    mfaToken; on success the token is spent and a session opened. Counted as sign-in attempts."""
    if (code is None) == (assertion is None):
        raise ApiError(400, "Send either a code or a passkey response.")
    challenge_id, user, challenge = await _pending_user(mfa_token)
    async with throttle.attempt(user.username, address) as attempt:
        if assertion is not None:
            method = "webauthn"
            error = await _check_passkey(
                user, credential_json(assertion), challenge.webauthn_challenge, settings
            )
        else:
            method, error = await check_code(user, code or "", settings)
        if error is not None:
            raise await _fail(user, address, method, error)
        if not await repository.spend_challenge(challenge_id, utc_now()):
            raise ApiError(401, MFA_EXPIRED)  # used by a simultaneous request
        await attempt.succeeded()
    origin = ProviderSignIn(**json.loads(challenge.origin)) if challenge.origin else None
    try:
        async with transaction() as conn:
            token = await open_session(user, settings, address, conn)
            actor = actor_of(user, address)
            await record(conn, actor, "mfa_success", details=f"method={method}")
            if origin is None:
                await record(conn, actor, "login")
            else:
                if origin.link:  # bff/oidc/service.py's link_by_password or _by_code
                    code = origin.link_code
                    if code and not await oidc_sessions.take_code(conn, user.id, code, utc_now()):
                        raise ApiError(400, LINK_CODE_GONE)  # nothing of this sign-in stays
                    await oidc_sessions.link(conn, user.id, origin.issuer, origin.subject)
                    by = "code" if code else "password"
                    changed = f"user={user.username} changed=sso-linked by={by}"
                    subject = f"subject={origin.subject[:200]}"
                    await record(conn, actor, "user_update", details=f"{changed} {subject}")
                    publish(USERS_CHANGED, {"userId": user.id}, [ADMINS])
                await oidc_sessions.record_session(
                    conn, session_id_of(token), origin.issuer, origin.subject, origin.provider_sid
                )
                details = f"method=oidc subject={origin.subject[:200]} mfa=local"
                await record(conn, actor, "login", details=details)
    except IntegrityError:  # the subject or the account was linked meanwhile
        raise ApiError(409, LINKED_MEANWHILE) from None
    return SignedIn(token, user_claims(user))


async def login_passkey_options(mfa_token: str, settings: Settings) -> dict[str, Any]:
    """WebAuthn request options for the second step of a live mfaToken."""
    challenge_id, user, _ = await _pending_user(mfa_token)
    passkeys = await repository.passkeys_of(user.id)
    if not passkeys:
        raise ApiError(400, NO_PASSKEYS)
    rp_id, _ = relying_party(settings)
    options = generate_authentication_options(
        rp_id=rp_id,
        allow_credentials=[
            PublicKeyCredentialDescriptor(id=base64url_to_bytes(p.credential_id)) for p in passkeys
        ],
        user_verification=UserVerificationRequirement.PREFERRED,
    )
    await repository.set_webauthn_challenge(challenge_id, bytes_to_base64url(options.challenge))
    result: dict[str, Any] = json.loads(options_to_json(options))
    return result


async def confirm_identity(
    principal: Principal,
    code: str | None,
    password: str | None,
    settings: Settings,
    throttle: LoginThrottle,
    address: str,
) -> str:
    """The one identity check before a sensitive change (POST /api/auth/confirm-identity): a
    current authenticator code, a recovery code (spent) or the password. Counted as a sign-in
    attempt, so a stolen session cannot guess either freely; both outcomes are audited. On
    success the session counts as recently authenticated and gets a one-use step-up proof
    (bff/auth/stepup.py), returned."""
    if not code and not password:
        raise ApiError(400, IDENTITY_REQUIRED)
    user = await find_user(principal.user_id)
    async with throttle.attempt(principal.username, address) as attempt:
        if code:
            method, error = await check_code(user, code, settings)
            ok = error is None
        else:
            method = "password"
            ok = await verify_password(user.password_hash, password or "", queue=attempt.known)
        if not ok:
            await record_alone(
                actor_of(principal, address), "mfa_failed", details=f"method={method} confirm"
            )
            raise ApiError(400, IDENTITY_WRONG)
        await throttle.release(attempt)  # right: it does not count
    proof = await stepup.renew(principal)
    await record_alone(
        actor_of(principal, address), "mfa_success", details=f"method={method} confirm"
    )
    return proof
