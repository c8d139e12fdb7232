"""Every query of the quarantine and of the files' scan states (bff/scan/)."""

from __future__ import annotations

from typing import Any

from tortoise.backends.base.client import BaseDBAsyncClient

from bff.files.models import StoredFile
from bff.scan.models import Quarantined


async def add(conn: BaseDBAsyncClient, **values: Any) -> Quarantined:
    """Record a quarantined content (in the caller's transaction)."""
    return await Quarantined.create(**values, using_db=conn)


async def page(offset: int, limit: int) -> tuple[list[Quarantined], int]:
    """Quarantined contents, newest first, and how many there are."""
    total = await Quarantined.all().count()
    rows = await Quarantined.all().order_by("-found_at", "-id").offset(offset).limit(limit)
    return rows, total


async def find(quarantine_id: int) -> Quarantined | None:
    return await Quarantined.get_or_none(id=quarantine_id)


async def remove(conn: BaseDBAsyncClient, quarantine_id: int) -> bool:
    """Delete a quarantine row; whether it was there."""
    return bool(await Quarantined.filter(id=quarantine_id).using_db(conn).delete())


async def count() -> int:
    return await Quarantined.all().count()


async def count_files(scan_state: str) -> int:
    """How many files are in scan_state."""
    return await StoredFile.filter(scan_state=scan_state).count()


async def held_files(limit: int) -> list[StoredFile]:
    """Files stored held (not scanned yet), oldest first."""
    return await StoredFile.filter(scan_state="held").order_by("last_modified", "id").limit(limit)
