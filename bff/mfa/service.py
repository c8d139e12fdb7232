"""Second factors: enrolment, removal, new recovery codes and the admin's reset. Proving one
(the second sign-in step, confirming identity): bff/mfa/signin.py.

Enrolling or removing a factor ends the user's other sessions (live `session:revoked`); from a
restricted session (a role in BFF_MFA_REQUIRED_ROLES without a factor) the first enrolment ends
that session too and returns a full one.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import pyotp
from tortoise.backends.base.client import BaseDBAsyncClient
from tortoise.exceptions import IntegrityError
from webauthn import (
    base64url_to_bytes,
    generate_registration_options,
    options_to_json,
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

from bff.audit.service import Actor, record
from bff.auth.sessions import (
    Principal,
    end_all_sessions,
    end_other_sessions,
    open_session,
)
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
from bff.mfa.signin import (
    PASSKEY_FAILED,
    actor_of,
    credential_json,
    digest,
    has_factor,
    matching_step,
    relying_party,
    utc_now,
)
from bff.users.service import find_user
from config.settings import Settings

ISSUER = "Patient Records"
REGISTER_SECONDS = 300  # a passkey must be created within 5 minutes of its options
RECOVERY_CODES = 10
MAX_PASSKEYS = 10  # per user
NO_PENDING = "Start setting up an authenticator first."
TOTP_EXISTS = "An authenticator is already set up. Remove it first to set up another."
CONFIRM_WRONG = "That code does not match. Check the time on your device and try again."
NO_TOTP = "No authenticator is set up."
PASSKEY_NOT_FOUND = "Passkey not found"
PASSKEY_EXISTS = "This passkey is already registered."
TOO_MANY_PASSKEYS = f"You can have at most {MAX_PASSKEYS} passkeys. Remove one first."
NO_REGISTRATION = "Start adding a passkey first."
NO_FACTOR = "Set up an authenticator or a passkey first."


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
        if not await repository.confirm_totp(conn, principal.user_id, row.pending, step, utc_now()):
            raise ApiError(400, NO_PENDING)  # replaced by a newer setup meanwhile
        await repository.replace_recovery_codes(conn, principal.user_id, hashes)
        token = await _factor_changed(conn, principal, settings, address)
        await record(conn, actor_of(principal, address), "mfa_enrol", details="method=totp")
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
    challenge_id = digest("register:" + principal.session_id)
    now = utc_now()
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
    challenge_id = digest("register:" + principal.session_id)
    challenge = await repository.live_challenge(challenge_id, "register", utc_now())
    if challenge is None or challenge.webauthn_challenge is None:
        raise ApiError(400, NO_REGISTRATION)
    if not await repository.spend_challenge(challenge_id, utc_now()):
        raise ApiError(400, NO_REGISTRATION)
    rp_id, origin = relying_party(settings)
    try:
        verified = verify_registration_response(
            credential=credential_json(credential),
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
                actor_of(principal, address),
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
        await record(conn, actor_of(principal, address), "mfa_remove", details="method=totp")


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
            actor_of(principal, address),
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
        await record(conn, actor_of(principal, address), "mfa_recovery_codes")
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
