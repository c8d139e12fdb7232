"""Reads and writes of single sign-on: links, the provider's sessions, one-use marks and
hand-overs."""

from __future__ import annotations

from datetime import datetime

from tortoise.backends.base.client import BaseDBAsyncClient
from tortoise.exceptions import IntegrityError

from bff.oidc.models import OidcHandoff, OidcLink, OidcOnce, OidcSession


async def linked_user_id(issuer: str, subject: str) -> int | None:
    """The user linked to a provider's subject, or None."""
    link = await OidcLink.get_or_none(issuer=issuer, subject=subject)
    return link.user_id if link else None


async def is_linked(user_id: int, issuer: str) -> bool:
    """Whether a user is linked to a subject of the issuer."""
    return await OidcLink.filter(user_id=user_id, issuer=issuer).exists()


async def linked_users(user_ids: list[int]) -> set[int]:
    """Which of user_ids are linked to a provider's subject."""
    if not user_ids:
        return set()
    rows = await OidcLink.filter(user_id__in=user_ids).values_list("user_id", flat=True)
    return {int(str(row)) for row in rows}


async def link(conn: BaseDBAsyncClient, user_id: int, issuer: str, subject: str) -> None:
    """Link a user to a provider's subject inside transaction conn."""
    await OidcLink.create(user_id=user_id, issuer=issuer, subject=subject, using_db=conn)


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


async def take_handoff(code_hash: str, now: datetime) -> OidcHandoff | None:
    """Remove and return the hand-over stored under code_hash if it has not expired (one use:
    of two requests racing for it only the one whose delete removed the row gets it)."""
    await OidcHandoff.filter(expires_at__lt=now).delete()
    handoff = await OidcHandoff.get_or_none(id=code_hash)
    if handoff is None or int(await OidcHandoff.filter(id=code_hash).delete()) != 1:
        return None
    return handoff


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
