"""Reads and writes of single sign-on: links, link codes, the provider's sessions, one-use
marks, hand-overs, offers to link and the subjects seen without a link."""

from __future__ import annotations

import contextlib
from datetime import datetime

from tortoise.backends.base.client import BaseDBAsyncClient
from tortoise.exceptions import IntegrityError

from bff.oidc.models import (
    OidcExpected,
    OidcHandoff,
    OidcLink,
    OidcLinkOffer,
    OidcOnce,
    OidcSeen,
    OidcSession,
)


async def linked_user_id(issuer: str, subject: str) -> int | None:
    """The user linked to a provider's subject, or None."""
    link = await OidcLink.get_or_none(issuer=issuer, subject=subject)
    return link.user_id if link else None


async def is_linked(user_id: int, issuer: str) -> bool:
    """Whether a user is linked to a subject of the issuer."""
    return await OidcLink.filter(user_id=user_id, issuer=issuer).exists()


async def link_of(user_id: int, issuer: str) -> OidcLink | None:
    """A user's link to a subject of the issuer, if any."""
    return await OidcLink.get_or_none(user_id=user_id, issuer=issuer)


async def linked_users(user_ids: list[int]) -> set[int]:
    """Which of user_ids are linked to a provider's subject."""
    if not user_ids:
        return set()
    rows = await OidcLink.filter(user_id__in=user_ids).values_list("user_id", flat=True)
    return {int(str(row)) for row in rows}


async def link(conn: BaseDBAsyncClient, user_id: int, issuer: str, subject: str) -> None:
    """Link a user to a provider's subject inside transaction conn (IntegrityError when the
    subject is linked already); the user's expected link and the subject's sighting go."""
    await OidcLink.create(user_id=user_id, issuer=issuer, subject=subject, using_db=conn)
    await OidcExpected.filter(user_id=user_id).using_db(conn).delete()
    await OidcSeen.filter(issuer=issuer, subject=subject).using_db(conn).delete()


async def unlink(conn: BaseDBAsyncClient, user_id: int) -> int:
    """Remove every link of a user; how many there were."""
    return int(await OidcLink.filter(user_id=user_id).using_db(conn).delete())


async def use_once(key: str, expires_at: datetime, now: datetime) -> bool:
    """Mark key used (until expires_at); False when it was used already. Sweeps old marks."""
    await OidcOnce.filter(expires_at__lt=now).delete()
    try:
        await OidcOnce.create(key=key, expires_at=expires_at)
    except IntegrityError:
        return False
    return True


async def create_handoff(conn: BaseDBAsyncClient | None, handoff: OidcHandoff) -> None:
    """Store a sign-in waiting for the web app."""
    await handoff.save(using_db=conn, force_create=True)


async def live_handoff(code_hash: str, now: datetime) -> OidcHandoff | None:
    """The hand-over stored under code_hash if it has not expired (sweeps expired ones)."""
    await OidcHandoff.filter(expires_at__lt=now).delete()
    return await OidcHandoff.get_or_none(id=code_hash)


async def take_handoff(code_hash: str) -> bool:
    """Remove the hand-over stored under code_hash; True for the one request whose delete
    removed it (one use, however many race for it)."""
    return int(await OidcHandoff.filter(id=code_hash).delete()) == 1


async def create_offer(offer: OidcLinkOffer) -> None:
    """Store an offer to link a subject to an account by its password."""
    await offer.save(force_create=True)


async def live_offer(code_hash: str, now: datetime) -> OidcLinkOffer | None:
    """The offer stored under code_hash if it has not expired (sweeps expired ones)."""
    await OidcLinkOffer.filter(expires_at__lt=now).delete()
    return await OidcLinkOffer.get_or_none(id=code_hash)


async def take_offer(code_hash: str) -> bool:
    """Remove an offer; True for the one request whose delete removed it."""
    return int(await OidcLinkOffer.filter(id=code_hash).delete()) == 1


async def expected_until(user_id: int) -> datetime | None:
    """Until when a user's "link at next sign-in" holds, if they have one."""
    row = await OidcExpected.get_or_none(user_id=user_id)
    return row.expires_at if row else None


async def expect(conn: BaseDBAsyncClient, user_id: int, code_hash: str, until: datetime) -> None:
    """Set a user's "link at next sign-in" (its link code's hash) until `until`, replacing the
    one they had."""
    await OidcExpected.filter(user_id=user_id).using_db(conn).delete()
    await OidcExpected.create(user_id=user_id, code_hash=code_hash, expires_at=until, using_db=conn)


async def drop_expected(conn: BaseDBAsyncClient, user_id: int) -> int:
    """Remove a user's "link at next sign-in"; how many there were (0 or 1)."""
    return int(await OidcExpected.filter(user_id=user_id).using_db(conn).delete())


async def expected_by_code(code_hash: str, now: datetime) -> OidcExpected | None:
    """The live "link at next sign-in" whose link code has this hash, or None."""
    if not code_hash:
        return None
    return await OidcExpected.get_or_none(code_hash=code_hash, expires_at__gt=now)


async def take_code(conn: BaseDBAsyncClient, user_id: int, code_hash: str, now: datetime) -> bool:
    """Use a user's live link code up (True); False when it was used, replaced, withdrawn or
    expired meanwhile (one use, however many race for it)."""
    live = OidcExpected.filter(user_id=user_id, code_hash=code_hash, expires_at__gt=now)
    return int(await live.using_db(conn).delete()) == 1


async def saw(
    issuer: str, subject: str, username: str, name: str, now: datetime, keep_since: datetime
) -> None:
    """Remember a subject seen without a link (what its claims said, and when); forget those
    not seen since keep_since."""
    await OidcSeen.filter(seen_at__lt=keep_since).delete()
    updated = await OidcSeen.filter(issuer=issuer, subject=subject).update(
        username=username, name=name, seen_at=now
    )
    if not updated:
        # IntegrityError: seen by a simultaneous request, whose row says the same
        with contextlib.suppress(IntegrityError):
            await OidcSeen.create(
                issuer=issuer, subject=subject, username=username, name=name, seen_at=now
            )


async def seen_since(issuer: str, since: datetime, limit: int) -> list[OidcSeen]:
    """The subjects of the issuer seen without a link since `since`, the latest first."""
    query = OidcSeen.filter(issuer=issuer, seen_at__gte=since)
    return await query.order_by("-seen_at", "-id").limit(limit)


async def record_session(
    conn: BaseDBAsyncClient, session_id: str, issuer: str, subject: str, provider_sid: str
) -> None:
    """Remember that a session was opened through the provider (with its sid)."""
    await OidcSession.create(
        session_id=session_id,
        issuer=issuer,
        subject=subject,
        provider_sid=provider_sid,
        using_db=conn,
    )


async def is_provider_session(session_id: str) -> bool:
    """Whether a session was opened through the provider."""
    return await OidcSession.filter(session_id=session_id).exists()


async def sessions_of_sid(issuer: str, provider_sid: str) -> list[tuple[str, int]]:
    """The (session id, user id) pairs opened within a provider session."""
    rows = await OidcSession.filter(issuer=issuer, provider_sid=provider_sid).values_list(
        "session_id", "session__user_id"
    )
    return [(str(sid), int(uid)) for sid, uid in rows]
