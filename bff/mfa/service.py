"""Second factors: enrolment, the second sign-in step, removal, admin reset.

Codes are checked under the sign-in throttle (bff/auth/throttle.py), counted per user and
address like passwords: a right password followed by wrong codes does not start the count
afresh. A TOTP code is accepted in the current 30-second step or one either side, and each step
once per user (`last_step`, one conditional update). Enrolling or removing a factor ends the
user's other sessions (live `session:revoked`); from a restricted session (a role in
BFF_MFA_REQUIRED_ROLES without a factor) the first enrolment ends that session too and
returns a full one.
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
from tortoise.backends.base.client import BaseDBAsyncClient
from tortoise.exceptions import IntegrityError
from webauthn import (
    base64url_to_bytes,
    generate_authentication_options,
    generate_registration_options,
    options_to_json,
    verify_authentication_response,
    verify_registration_response,
)
from webauthn.helpers import bytes_to_base64url
from webauthn.helpers.exceptions import WebAuthnException
from webauthn.helpers.structs import (
    AuthenticatorSelectionCriteria,
    PublicKeyCredentialDescriptor,
    ResidentKeyRequirement,
    UserVerificationRequirement,
)

from bff.audit.service import Actor, record, record_alone
from bff.auth.passwords import verify_password
from bff.auth.sessions import (
    Principal,
    end_all_sessions,
    end_other_sessions,
    open_session,
    user_claims,
)
from bff.auth.throttle import LoginThrottle
from bff.db import transaction
from bff.errors import ApiError
from bff.live.events import ADMINS, USERS_CHANGED, publish
from bff.mfa import repository
from bff.mfa.sealing import (
    SeedUnavailable,
    new_recovery_code,
    open_seed,
    recovery_hash,
    seal_seed,
)
from bff.users import repository as users
from bff.users.models import User
from bff.users.service import find_user
from config.settings import Settings

ISSUER = "Patient Records"
MFA_TOKEN_SECONDS = 300  # the second step must follow the password within 5 minutes
REGISTER_SECONDS = 300  # a passkey must be created within 5 minutes of its options
RECOVERY_CODES = 10
TOTP_DIGITS = 6
MAX_CREDENTIAL_BYTES = 64 * 1024  # a WebAuthn credential's JSON, at most
MAX_PASSKEYS = 10  # per user

MFA_EXPIRED = "Your sign-in has expired. Please sign in again."
CODE_WRONG = "That code is not right. Please try again."
CODE_REUSED = "That code has already been used. Wait for the next code and try again."
PASSKEY_FAILED = "That passkey could not be verified. Please try again."
NO_PASSKEYS = "No passkey is set up for this account."
NO_PENDING = "Start setting up an authenticator first."
TOTP_EXISTS = "An authenticator is already set up. Remove it first to set up another."
CONFIRM_WRONG = "That code does not match. Check the time on your device and try again."
NO_TOTP = "No authenticator is set up."
PASSKEY_NOT_FOUND = "Passkey not found"
PASSKEY_EXISTS = "This passkey is already registered."
TOO_MANY_PASSKEYS = f"You can have at most {MAX_PASSKEYS} passkeys. Remove one first."
NO_REGISTRATION = "Start adding a passkey first."
IDENTITY_REQUIRED = "Enter a current code from your authenticator, or your password."
IDENTITY_WRONG = "That code or password is not right."
NO_FACTOR = "Set up an authenticator or a passkey first."


def _now() -> datetime:
    return datetime.now(UTC)


def _digest(value: str) -> str:
    return hashlib.sha256(value.encode()).hexdigest()


def _actor(user: User | Principal, address: str) -> Actor:
    user_id = user.id if isinstance(user, User) else user.user_id
    return Actor(user_id, user.name, user.role.value, address)


def relying_party(settings: Settings) -> tuple[str, str]:
    """The WebAuthn relying party id (host) and origin, from BFF_PUBLIC_URL."""
    parts = urlsplit(settings.public_url)
    return parts.hostname or "localhost", f"{parts.scheme}://{parts.netloc}"


def matching_step(seed: str, code: str, at: float | None = None) -> int | None:
    """The TOTP time step (current, previous or next) whose code is `code`, or None."""
    code = code.strip().replace(" ", "")
    if len(code) != TOTP_DIGITS or not code.isdigit():
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


# -- The second sign-in step --------------------------------------------------------------


async def start_second_step(user: User) -> tuple[str, list[str]]:
    """After a right password: a single-use mfaToken (5 minutes) and the user's methods."""
    token = secrets.token_urlsafe(32)
    now = _now()
    expires = now + timedelta(seconds=MFA_TOKEN_SECONDS)
    await repository.create_challenge(_digest(token), user.id, "login", expires, now)
    return token, await methods_of(user.id)


@dataclass(frozen=True)
class SignedIn:
    """The result of a completed second step."""

    token: str
    user: dict[str, Any]


async def _pending_user(mfa_token: str) -> tuple[str, User, str | None]:
    """The challenge id, user and WebAuthn challenge of a live mfaToken, or 401."""
    challenge_id = _digest(mfa_token)
    challenge = await repository.live_challenge(challenge_id, "login", _now())
    user = await users.user_by_id(challenge.user_id) if challenge is not None else None
    if challenge is None or user is None:
        raise ApiError(401, MFA_EXPIRED)
    return challenge_id, user, challenge.webauthn_challenge


async def _fail(user: User | Principal, address: str, method: str, message: str) -> ApiError:
    """Audit a wrong second factor and return the error to raise."""
    reason = "reused" if message == CODE_REUSED else "wrong"
    await record_alone(_actor(user, address), "mfa_failed", details=f"method={method} {reason}")
    return ApiError(401, message)


async def _check_totp(user: User | Principal, code: str, settings: Settings) -> str | None:
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


async def _check_code(user: User, code: str, settings: Settings) -> tuple[str, str | None]:
    """(method, error message or None) for a TOTP or recovery code."""
    if code.strip().replace(" ", "").isdigit():
        return "totp", await _check_totp(user, code, settings)
    spent = await repository.use_recovery_code(user.id, recovery_hash(settings, user.id, code))
    return "recovery", None if spent else CODE_WRONG


def _credential(credential: dict[str, Any]) -> dict[str, Any]:
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
    await repository.passkey_used(passkey.id, verified.new_sign_count, _now())
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
    challenge_id, user, webauthn_challenge = await _pending_user(mfa_token)
    async with throttle.attempt(user.username, address) as attempt:
        if assertion is not None:
            method = "webauthn"
            error = await _check_passkey(user, _credential(assertion), webauthn_challenge, settings)
        else:
            method, error = await _check_code(user, code or "", settings)
        if error is not None:
            raise await _fail(user, address, method, error)
        if not await repository.spend_challenge(challenge_id, _now()):
            raise ApiError(401, MFA_EXPIRED)  # used by a simultaneous request
        await attempt.succeeded()
    async with transaction() as conn:
        token = await open_session(user, settings, address, conn)
        actor = _actor(user, address)
        await record(conn, actor, "mfa_success", details=f"method={method}")
        await record(conn, actor, "login")
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


# -- Enrolment and removal (signed in) ----------------------------------------------------


async def _factor_changed(
    conn: BaseDBAsyncClient, principal: Principal, settings: Settings, address: str
) -> str | None:
    """End the user's other sessions; from a restricted session end it too and return a full
    session's token."""
    publish(USERS_CHANGED, {"userId": principal.user_id}, [ADMINS])
    if not principal.restricted:
        await end_other_sessions(principal.user_id, principal.session_id, conn, "mfa-changed")
        return None
    await end_other_sessions(principal.user_id, None, conn, "mfa-enrolled")
    user = await find_user(principal.user_id)
    return await open_session(user, settings, address, conn)


def _new_codes(settings: Settings, user_id: int) -> tuple[list[str], list[str]]:
    codes = [new_recovery_code() for _ in range(RECOVERY_CODES)]
    return codes, [recovery_hash(settings, user_id, code) for code in codes]


async def start_totp(principal: Principal, settings: Settings) -> tuple[str, str]:
    """A new pending authenticator seed (replacing a pending one): (secret, otpauth URL)."""
    row = await repository.totp_of(principal.user_id)
    if row is not None and row.secret is not None:
        raise ApiError(409, TOTP_EXISTS)
    seed = pyotp.random_base32()
    await repository.save_pending(principal.user_id, seal_seed(settings, principal.user_id, seed))
    url = pyotp.TOTP(seed).provisioning_uri(name=principal.username, issuer_name=ISSUER)
    return seed, url


async def confirm_totp(
    principal: Principal, code: str, settings: Settings, address: str
) -> tuple[list[str], str | None]:
    """Confirm the pending authenticator with a code from it: (new recovery codes, a full
    session's token when confirmed from a restricted session)."""
    row = await repository.totp_of(principal.user_id)
    if row is None or row.pending is None:
        raise ApiError(400, NO_PENDING)
    if row.secret is not None:
        raise ApiError(409, TOTP_EXISTS)
    try:
        seed = open_seed(settings, principal.user_id, row.pending)
    except SeedUnavailable:
        raise ApiError(400, NO_PENDING) from None
    step = matching_step(seed, code)
    if step is None:
        raise ApiError(400, CONFIRM_WRONG)
    codes, hashes = _new_codes(settings, principal.user_id)
    async with transaction() as conn:
        if not await repository.confirm_totp(conn, principal.user_id, row.pending, step, _now()):
            raise ApiError(400, NO_PENDING)  # replaced by a newer setup meanwhile
        await repository.replace_recovery_codes(conn, principal.user_id, hashes)
        token = await _factor_changed(conn, principal, settings, address)
        await record(conn, _actor(principal, address), "mfa_enrol", details="method=totp")
    return codes, token


async def passkey_registration_options(principal: Principal, settings: Settings) -> dict[str, Any]:
    """WebAuthn creation options for a new passkey of the caller."""
    rp_id, _ = relying_party(settings)
    existing = await repository.passkeys_of(principal.user_id)
    if len(existing) >= MAX_PASSKEYS:
        raise ApiError(409, TOO_MANY_PASSKEYS)
    options = generate_registration_options(
        rp_id=rp_id,
        rp_name=ISSUER,
        user_id=str(principal.user_id).encode(),
        user_name=principal.username,
        user_display_name=principal.name,
        exclude_credentials=[
            PublicKeyCredentialDescriptor(id=base64url_to_bytes(p.credential_id)) for p in existing
        ],
        authenticator_selection=AuthenticatorSelectionCriteria(
            resident_key=ResidentKeyRequirement.PREFERRED,
            user_verification=UserVerificationRequirement.PREFERRED,
        ),
    )
    challenge_id = _digest("register:" + principal.session_id)
    now = _now()
    expires = now + timedelta(seconds=REGISTER_SECONDS)
    await repository.create_challenge(challenge_id, principal.user_id, "register", expires, now)
    await repository.set_webauthn_challenge(challenge_id, bytes_to_base64url(options.challenge))
    result: dict[str, Any] = json.loads(options_to_json(options))
    return result


@dataclass(frozen=True)
class NewPasskey:
    """A registered passkey, with recovery codes when it is the user's first factor and a full
    session's token when registered from a restricted session."""

    id: int
    label: str
    recovery_codes: list[str] | None
    token: str | None


async def register_passkey(
    principal: Principal, credential: dict[str, Any], label: str, settings: Settings, address: str
) -> NewPasskey:
    """Verify and store a new passkey created with the options issued to this session."""
    challenge_id = _digest("register:" + principal.session_id)
    challenge = await repository.live_challenge(challenge_id, "register", _now())
    if challenge is None or challenge.webauthn_challenge is None:
        raise ApiError(400, NO_REGISTRATION)
    if not await repository.spend_challenge(challenge_id, _now()):
        raise ApiError(400, NO_REGISTRATION)
    rp_id, origin = relying_party(settings)
    try:
        verified = verify_registration_response(
            credential=_credential(credential),
            expected_challenge=base64url_to_bytes(challenge.webauthn_challenge),
            expected_rp_id=rp_id,
            expected_origin=origin,
        )
    except (WebAuthnException, ValueError, KeyError, TypeError):
        raise ApiError(400, PASSKEY_FAILED) from None
    first = not await has_factor(principal.user_id)
    codes, hashes = _new_codes(settings, principal.user_id) if first else (None, [])
    try:
        async with transaction() as conn:
            passkey = await repository.add_passkey(
                conn,
                principal.user_id,
                bytes_to_base64url(verified.credential_id),
                bytes_to_base64url(verified.credential_public_key),
                verified.sign_count,
                label,
            )
            if codes is not None:
                await repository.replace_recovery_codes(conn, principal.user_id, hashes)
            token = await _factor_changed(conn, principal, settings, address)
            await record(
                conn,
                _actor(principal, address),
                "mfa_enrol",
                details=f"method=webauthn id={passkey.id}",
            )
    except IntegrityError:
        raise ApiError(409, PASSKEY_EXISTS) from None
    return NewPasskey(passkey.id, passkey.label, codes, token)


@dataclass(frozen=True)
class Status:
    """GET /api/auth/mfa."""

    totp: bool
    passkeys: list[Any]
    recovery_codes_left: int


async def status(user_id: int) -> Status:
    """The caller's factors."""
    row = await repository.totp_of(user_id)
    return Status(
        row is not None and row.secret is not None,
        await repository.passkeys_of(user_id),
        await repository.recovery_codes_left(user_id),
    )


async def confirm_identity(
    principal: Principal,
    code: str | None,
    password: str | None,
    settings: Settings,
    throttle: LoginThrottle,
    address: str,
) -> None:
    """Check a current authenticator code or the password before a factor changes; counted
    as a sign-in attempt (a stolen session cannot guess either freely)."""
    if not code and not password:
        raise ApiError(400, IDENTITY_REQUIRED)
    async with throttle.attempt(principal.username, address) as attempt:
        if code:
            ok = await _check_totp(principal, code, settings) is None
            method = "totp"
        else:
            user = await find_user(principal.user_id)
            ok = await verify_password(user.password_hash, password or "", queue=attempt.known)
            method = "password"
        if not ok:
            await record_alone(
                _actor(principal, address), "mfa_failed", details=f"method={method} confirm"
            )
            raise ApiError(400, IDENTITY_WRONG)
        await throttle.release(attempt)  # right: it does not count


async def _after_removal(conn: BaseDBAsyncClient, user_id: int) -> None:
    """Recovery codes go with the last factor."""
    if not await repository.users_with_factor([user_id]):
        await repository.replace_recovery_codes(conn, user_id, [])


async def remove_totp(principal: Principal, settings: Settings, address: str) -> None:
    """Remove the caller's authenticator (identity already confirmed)."""
    async with transaction() as conn:
        row = await repository.totp_of(principal.user_id, conn)
        if row is None or row.secret is None:
            raise ApiError(404, NO_TOTP)
        await repository.delete_totp(conn, principal.user_id)
        await _after_removal(conn, principal.user_id)
        await _factor_changed(conn, principal, settings, address)
        await record(conn, _actor(principal, address), "mfa_remove", details="method=totp")


async def remove_passkey(
    principal: Principal, passkey_id: int, settings: Settings, address: str
) -> None:
    """Remove one of the caller's passkeys (identity already confirmed)."""
    async with transaction() as conn:
        if not await repository.delete_passkey(conn, principal.user_id, passkey_id):
            raise ApiError(404, PASSKEY_NOT_FOUND)
        await _after_removal(conn, principal.user_id)
        await _factor_changed(conn, principal, settings, address)
        await record(
            conn,
            _actor(principal, address),
            "mfa_remove",
            details=f"method=webauthn id={passkey_id}",
        )


async def regenerate_recovery_codes(
    principal: Principal, settings: Settings, address: str
) -> list[str]:
    """Ten new recovery codes replacing the caller's (identity already confirmed)."""
    if not await has_factor(principal.user_id):
        raise ApiError(400, NO_FACTOR)
    codes, hashes = _new_codes(settings, principal.user_id)
    async with transaction() as conn:
        await repository.replace_recovery_codes(conn, principal.user_id, hashes)
        await record(conn, _actor(principal, address), "mfa_recovery_codes")
    return codes


async def reset(user_id: int, actor: Actor) -> str:
    """An admin removes every second factor of a user (a lost phone) and ends their sessions;
    return the user's name."""
    user = await find_user(user_id)
    async with transaction() as conn:
        factors = await repository.delete_factors(conn, user.id)
        ended = await end_all_sessions(user.id, conn, reason="mfa-reset")
        publish(USERS_CHANGED, {"userId": user.id}, [ADMINS])
        await record(
            conn,
            actor,
            "mfa_reset",
            details=f"user={user.username} factors={factors} sessions={ended}",
        )
    return user.name
