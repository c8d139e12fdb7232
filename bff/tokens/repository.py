"""Reads and writes of SmartTokens."""

from __future__ import annotations

from datetime import datetime

from tortoise.backends.base.client import BaseDBAsyncClient
from tortoise.expressions import Q

from bff.tokens.models import SmartToken, TokenStatus


async def chip_registered(secure_chip_id: str) -> bool:
    """Whether a token with this secure chip id exists."""
    return await SmartToken.exists(secure_chip_id=secure_chip_id)


async def uid_registered(sun_uid: str) -> bool:
    """Whether a SUN tag with this UID (upper-case hex) is registered."""
    return await SmartToken.exists(sun_uid=sun_uid)


async def create_token(
    conn: BaseDBAsyncClient,
    token_id: str,
    secure_chip_id: str,
    sun_uid: str | None = None,
    sun_key: str | None = None,
) -> SmartToken:
    """Insert an unclaimed token inside transaction conn (a SUN tag with its sealed key)."""
    return await SmartToken.create(
        token_id=token_id,
        secure_chip_id=secure_chip_id,
        sun_uid=sun_uid,
        sun_key=sun_key,
        using_db=conn,
    )


async def token_by_sun_uid(sun_uid: str) -> SmartToken | None:
    """A SUN tag's token by its UID, with its folder and container loaded."""
    return await SmartToken.get_or_none(sun_uid=sun_uid).select_related("folder__container")


async def accept_tap(conn: BaseDBAsyncClient, token_pk: int, counter: int, at: datetime) -> bool:
    """Record a tap's counter if it is above the last accepted one, in one statement; False
    when it is not (a replay). Two taps with one counter: the second waits for the first's
    row lock and then finds the counter no longer above (PostgreSQL re-checks the condition
    on the updated row; SQLite runs one writer at a time)."""
    query = SmartToken.filter(Q(sun_counter__isnull=True) | Q(sun_counter__lt=counter), id=token_pk)
    updated = await query.using_db(conn).update(sun_counter=counter, last_tap_at=at)
    return updated == 1


async def token_with_folder(token_pk: int, conn: BaseDBAsyncClient | None = None) -> SmartToken:
    """A token (by row id) with its folder and container loaded."""
    query = SmartToken.filter(id=token_pk).using_db(conn)
    return await query.select_related("folder__container").get()


async def token_by_token_id(token_id: str) -> SmartToken | None:
    """A token by its public id, with its folder and container loaded."""
    return await SmartToken.get_or_none(token_id=token_id).select_related("folder__container")


async def tokens_with_status(statuses: list[TokenStatus]) -> list[SmartToken]:
    """Tokens in any of statuses, newest first, with their folders and containers loaded."""
    query = SmartToken.filter(status__in=statuses).select_related("folder__container")
    return await query.order_by("-created_at", "-id")


async def tokens_in_container(container_id: int) -> list[SmartToken]:
    """Tokens linked to folders of a container, with their folders loaded."""
    query = SmartToken.filter(folder__container_id=container_id)
    return await query.select_related("folder")


async def locked_token(conn: BaseDBAsyncClient, token_id: str) -> SmartToken | None:
    """A token by its public id, locked until transaction conn ends."""
    return await SmartToken.filter(token_id=token_id).using_db(conn).select_for_update().first()


async def locked_folder_holder(
    conn: BaseDBAsyncClient, folder_id: int, except_pk: int
) -> SmartToken | None:
    """The token other than except_pk linked to a folder, locked until conn ends."""
    query = SmartToken.filter(folder_id=folder_id).exclude(id=except_pk).using_db(conn)
    return await query.select_for_update().first()


async def save_token(conn: BaseDBAsyncClient, token: SmartToken) -> None:
    """Write a changed token inside transaction conn."""
    await token.save(using_db=conn)


async def delete_token(conn: BaseDBAsyncClient, token_pk: int) -> None:
    """Delete a token (by row id) inside transaction conn."""
    await SmartToken.filter(id=token_pk).using_db(conn).delete()
