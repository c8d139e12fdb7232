"""Reads and writes of emergency grants."""

from __future__ import annotations

from datetime import datetime

from tortoise.backends.base.client import BaseDBAsyncClient

from bff.emergency.models import EmergencyGrant
from bff.tokens.models import SmartToken


async def grant_with_token(grant_id: str) -> EmergencyGrant | None:
    """A grant with its token, folder and container loaded."""
    query = EmergencyGrant.get_or_none(id=grant_id)
    return await query.select_related("token", "folder__container")


async def open_grant(
    conn: BaseDBAsyncClient,
    grant_id: str,
    token: SmartToken,
    expires_at: datetime,
    client_address: str,
    now: datetime,
) -> EmergencyGrant:
    """Insert a grant to token's folder inside transaction conn, sweeping expired grants."""
    await EmergencyGrant.filter(expires_at__lt=now).using_db(conn).delete()
    return await EmergencyGrant.create(
        id=grant_id,
        token=token,
        folder=token.folder,
        expires_at=expires_at,
        client_address=client_address,
        using_db=conn,
    )


async def delete_grant(conn: BaseDBAsyncClient, grant_id: str) -> None:
    """Delete one grant inside transaction conn."""
    await EmergencyGrant.filter(id=grant_id).using_db(conn).delete()


async def end_token_grants(conn: BaseDBAsyncClient, token_pk: int) -> None:
    """Delete every grant of a token (by its row id) inside transaction conn."""
    await EmergencyGrant.filter(token_id=token_pk).using_db(conn).delete()
