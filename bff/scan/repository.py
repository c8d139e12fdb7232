"""Every query of the quarantine and of the files' scan states (bff/scan/)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from tortoise.backends.base.client import BaseDBAsyncClient
from tortoise.expressions import Q

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


async def due_files(
    limit: int, max_size: int, stored_after: datetime | None, scanned_before: datetime
) -> list[StoredFile]:
    """Files due a scan (bff/scan/rescan.py), at most limit, at most max_size bytes (a larger
    one cannot be scanned whole). Every file never tried since its last verdict comes first:
    held ones (their staff wait for them), oldest first; then unscanned ones (stored before a
    scanner was configured, or restored so), oldest first; then clean ones stored after
    stored_after (None: none) last scanned before scanned_before, oldest scan first. Only then
    the files whose last try reached no verdict (scan_tried_at), of every group, the longest
    ago first: files clamd gives up on never hold up the rest, however many there are."""
    small = StoredFile.filter(size__lte=max_size)
    due = Q(scan_state="held") | Q(scan_state="unscanned")
    groups = [
        (small.filter(scan_state="held"), ("last_modified", "id")),
        (small.filter(scan_state="unscanned"), ("last_modified", "id")),
    ]
    if stored_after is not None:
        recent = Q(
            scan_state="clean", last_modified__gte=stored_after, scanned_at__lt=scanned_before
        )
        due |= recent
        groups.append((small.filter(recent), ("scanned_at", "id")))
    rows: list[StoredFile] = []
    parts = [group.filter(scan_tried_at=None).order_by(*order) for group, order in groups]
    parts.append(small.filter(due, scan_tried_at__not_isnull=True).order_by("scan_tried_at", "id"))
    for part in parts:
        if len(rows) >= limit:
            break
        rows += await part.limit(limit - len(rows))
    return rows


async def tried(file_id: int, version_id: str, when: datetime) -> None:
    """Note that a scan of a file's content (still version_id) reached no verdict at when."""
    await StoredFile.filter(id=file_id, version_id=version_id).update(scan_tried_at=when)
