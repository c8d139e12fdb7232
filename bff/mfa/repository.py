"""Reads and writes of second factors and their challenges."""

from __future__ import annotations

from datetime import datetime

from tortoise.backends.base.client import BaseDBAsyncClient
from tortoise.expressions import Q

from bff.db import fetch
from bff.mfa.models import MfaChallenge, Passkey, RecoveryCode, TotpFactor

MAX_CHALLENGES_PER_USER = 5  # second steps open at once per user (older ones are dropped)

# Every sign-in asks this: one plain query.
HAS_FACTOR = (
    "SELECT 1 AS one FROM mfa_totp WHERE user_id = ? AND secret IS NOT NULL "
    "UNION ALL SELECT 1 AS one FROM mfa_passkeys WHERE user_id = ? LIMIT 1"
)


async def has_factor(user_id: int) -> bool:
    """Whether a user has a confirmed authenticator or a passkey (one query)."""
    return bool(await fetch(HAS_FACTOR, user_id, user_id))


async def totp_of(user_id: int, conn: BaseDBAsyncClient | None = None) -> TotpFactor | None:
    """A user's authenticator row (confirmed or pending), or None."""
    return await TotpFactor.filter(user_id=user_id).using_db(conn).first()


async def save_pending(user_id: int, sealed: str) -> None:
    """Store (or replace) a pending authenticator seed."""
    row = await totp_of(user_id)
    if row is None:
        await TotpFactor.create(user_id=user_id, pending=sealed)
    else:
        await TotpFactor.filter(user_id=user_id).update(pending=sealed)


async def confirm_totp(
    conn: BaseDBAsyncClient, user_id: int, sealed: str, step: int, now: datetime
) -> bool:
    """Make the pending seed sealed the user's authenticator, if it is still the pending one."""
    updated = (
        await TotpFactor.filter(user_id=user_id, pending=sealed)
        .using_db(conn)
        .update(secret=sealed, pending=None, last_step=step, confirmed_at=now)
    )
    return updated == 1


async def use_step(user_id: int, step: int) -> bool:
    """Accept TOTP time step `step` once: False when it (or a later one) was used already.
    One conditional update, so two requests with the same code cannot both pass."""
    updated = await TotpFactor.filter(
        user_id=user_id, secret__not_isnull=True, last_step__lt=step
    ).update(last_step=step)
    return updated == 1


async def delete_totp(conn: BaseDBAsyncClient | None, user_id: int) -> int:
    """Remove a user's authenticator; return how many rows went."""
    return int(await TotpFactor.filter(user_id=user_id).using_db(conn).delete())


async def passkeys_of(user_id: int) -> list[Passkey]:
    """A user's passkeys, oldest first."""
    return list(await Passkey.filter(user_id=user_id).order_by("id"))


async def passkey_by_credential(credential_id: str) -> Passkey | None:
    """A passkey by its base64url credential id."""
    return await Passkey.filter(credential_id=credential_id).first()


async def add_passkey(
    conn: BaseDBAsyncClient,
    user_id: int,
    credential_id: str,
    public_key: str,
    count: int,
    label: str,
) -> Passkey:
    """Store a registered passkey."""
    return await Passkey.create(
        user_id=user_id,
        credential_id=credential_id,
        public_key=public_key,
        sign_count=count,
        label=label,
        using_db=conn,
    )


async def passkey_used(passkey_id: int, count: int, now: datetime) -> None:
    """Record a passkey's use and its authenticator's new signature counter."""
    await Passkey.filter(id=passkey_id).update(sign_count=count, last_used_at=now)


async def delete_passkey(conn: BaseDBAsyncClient, user_id: int, passkey_id: int) -> bool:
    """Remove one of a user's passkeys; False when the user has no such passkey."""
    return int(await Passkey.filter(id=passkey_id, user_id=user_id).using_db(conn).delete()) == 1


async def users_with_factor(user_ids: list[int] | None = None) -> set[int]:
    """The ids (among user_ids, or all) of users with a confirmed authenticator or a passkey."""
    totp = TotpFactor.filter(secret__not_isnull=True)
    keys = Passkey.all()
    if user_ids is not None:
        totp, keys = totp.filter(user_id__in=user_ids), keys.filter(user_id__in=user_ids)
    with_totp = await totp.values_list("user_id", flat=True)
    with_keys = await keys.values_list("user_id", flat=True)
    return {int(uid) for uid in [*with_totp, *with_keys]}  # type: ignore[call-overload]


async def replace_recovery_codes(conn: BaseDBAsyncClient, user_id: int, hashes: list[str]) -> None:
    """Replace a user's recovery codes with these hashes."""
    await RecoveryCode.filter(user_id=user_id).using_db(conn).delete()
    await RecoveryCode.bulk_create(
        [RecoveryCode(user_id=user_id, code_hash=h) for h in hashes], using_db=conn
    )


async def use_recovery_code(user_id: int, code_hash: str) -> bool:
    """Spend a recovery code: True when it existed (and now is gone), atomically."""
    return int(await RecoveryCode.filter(user_id=user_id, code_hash=code_hash).delete()) == 1


async def recovery_codes_left(user_id: int) -> int:
    """How many unused recovery codes a user has."""
    return await RecoveryCode.filter(user_id=user_id).count()


async def delete_factors(conn: BaseDBAsyncClient, user_id: int) -> int:
    """Remove every second factor, recovery code and challenge of a user; return how many
    factors (authenticator, passkeys) there were."""
    totp = await TotpFactor.filter(user_id=user_id, secret__not_isnull=True).using_db(conn).count()
    await TotpFactor.filter(user_id=user_id).using_db(conn).delete()
    keys = int(await Passkey.filter(user_id=user_id).using_db(conn).delete())
    await RecoveryCode.filter(user_id=user_id).using_db(conn).delete()
    await MfaChallenge.filter(user_id=user_id).using_db(conn).delete()
    return totp + keys


async def create_challenge(
    challenge_id: str,
    user_id: int,
    purpose: str,
    expires_at: datetime,
    now: datetime,
    origin: str | None = None,
) -> None:
    """Store a challenge (replacing one with the same id), sweeping expired ones."""
    await MfaChallenge.filter(expires_at__lt=now).delete()
    await MfaChallenge.filter(id=challenge_id).delete()
    await MfaChallenge.create(
        id=challenge_id, user_id=user_id, purpose=purpose, expires_at=expires_at, origin=origin
    )
    # Right passwords are not counted by the throttle: bound what they can pile up per user.
    newest = MfaChallenge.filter(user_id=user_id, purpose=purpose).order_by("-expires_at")
    stale = await newest.offset(MAX_CHALLENGES_PER_USER).values_list("id", flat=True)
    if stale:
        await MfaChallenge.filter(id__in=list(stale)).delete()


async def live_challenge(challenge_id: str, purpose: str, now: datetime) -> MfaChallenge | None:
    """A challenge that has not expired, or None."""
    return await MfaChallenge.filter(
        Q(id=challenge_id), Q(purpose=purpose), Q(expires_at__gt=now)
    ).first()


async def set_webauthn_challenge(challenge_id: str, challenge: str) -> None:
    """Remember the WebAuthn challenge issued for a challenge row."""
    await MfaChallenge.filter(id=challenge_id).update(webauthn_challenge=challenge)


async def spend_challenge(challenge_id: str, now: datetime) -> bool:
    """Use a challenge up: True for exactly one caller while it is live."""
    return int(await MfaChallenge.filter(id=challenge_id, expires_at__gt=now).delete()) == 1
