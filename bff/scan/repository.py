"""Every query of the quarantine and of the files' scan states (bff/scan/)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from tortoise.backends.base.client import BaseDBAsyncClient
from tortoise.expressions import Q
from tortoise.queryset import QuerySet

from bff.files.models import FileVersion, StoredFile, TrashedFile
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


# A content the rescan scans: a file's current one, an earlier version, a trash entry's own.
Content = StoredFile | FileVersion | TrashedFile


async def due_files(
    limit: int, max_size: int, stored_after: datetime | None, scanned_before: datetime
) -> list[Content]:
    """Contents due a scan (bff/scan/rescan.py), at most limit, at most max_size bytes (a
    larger one cannot be scanned whole). Every content never tried since its last verdict
    comes first: held files (their staff wait for them), oldest first; then unscanned ones
    (stored before a scanner was configured, or restored so), oldest first; then earlier
    versions and trash entries held or unscanned (they are not scanned again once clean),
    oldest first; then clean files stored after stored_after (None: none) last scanned before
    scanned_before, oldest scan first. Only then the contents whose last try reached no verdict
    (scan_tried_at), of every group, the longest ago first: contents clamd gives up on never
    hold up the rest, however many there are."""
    small = StoredFile.filter(size__lte=max_size)
    unsettled = Q(scan_state="held") | Q(scan_state="unscanned")
    due = unsettled
    history: list[tuple[QuerySet[Any], str]] = [
        (FileVersion.filter(unsettled, size__lte=max_size), "last_modified"),
        (TrashedFile.filter(unsettled, size__lte=max_size), "deleted_at"),
    ]
    parts: list[Any] = [
        small.filter(scan_state="held", scan_tried_at=None).order_by("last_modified", "id"),
        small.filter(scan_state="unscanned", scan_tried_at=None).order_by("last_modified", "id"),
        *(query.filter(scan_tried_at=None).order_by(by, "id") for query, by in history),
    ]
    if stored_after is not None:
        recent = Q(
            scan_state="clean", last_modified__gte=stored_after, scanned_at__lt=scanned_before
        )
        due |= recent
        parts.append(small.filter(recent, scan_tried_at=None).order_by("scanned_at", "id"))
    rows: list[Content] = []
    for part in parts:
        if len(rows) >= limit:
            return rows
        rows += await part.limit(limit - len(rows))
    tried: list[Content] = []
    for query in (small.filter(due), *(query for query, _ in history)):
        tried += (
            await query.filter(scan_tried_at__not_isnull=True)
            .order_by("scan_tried_at", "id")
            .limit(limit - len(rows))
        )
    tried.sort(key=lambda row: row.scan_tried_at or datetime.min)
    return rows + tried[: limit - len(rows)]


async def tried(row: Content, when: datetime) -> None:
    """Note that a scan of a content (still the one scanned) reached no verdict at when."""
    if isinstance(row, StoredFile):
        await StoredFile.filter(id=row.id, version_id=row.version_id).update(scan_tried_at=when)
    else:
        await type(row).filter(id=row.id).update(scan_tried_at=when)
