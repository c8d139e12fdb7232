"""Splitting an intake PDF into new items by page ranges, and turning its pages (the PDF's own
/Rotate), the pages' work done in the worker pool (pdfwork.py).

A split takes each part in as an item the way every document is taken in (`service.take_in`:
screened, deduplicated by its bytes, audited `intake_received`), then marks the original
deleted with the split as its reason, audited `intake_split`, in one conditional UPDATE (only
while it is new: a split beside a filing or another split loses with a 409; the parts it made
stay as items, and the same split again makes the same parts, so none is made twice).

Turning writes the turned PDF as a new object first, then in one transaction points the item
at it (only while the item is new and still has the bytes that were turned) and records
`intake_rotated`; the old bytes are removed after the commit (a crash in between leaves bytes no
item names, which the housekeeping removes). The item's sha256 stays that of the content as
received, so the same scan arriving again is still recognised.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any

from bff.audit.service import Actor, record
from bff.db import transaction
from bff.errors import ApiError
from bff.files.names import new_id
from bff.intake import repository
from bff.intake.filing import settled
from bff.intake.models import IntakeItem, Status
from bff.intake.pages import PDF
from bff.intake.pdfwork import extract_pages, rotate_pages
from bff.intake.service import (
    Arrival,
    find_item,
    intake_rooms,
    item_key,
    take_in,
)
from bff.live.events import INTAKE_CHANGED, INTAKE_DELETED, publish
from bff.services import running_services
from bff.workers import WorkerBusy, WorkerFailed, WorkerTimeout
from storage.base import Storage, StorageError

log = logging.getLogger(__name__)

MAX_PARTS = 50
WORK_SECONDS = 60.0
ONLY_PDF = "Only a PDF's pages can be split or turned."
BUSY = "The server is busy; try again in a minute."
FAILED = "This PDF's pages could not be changed."
CHANGED = "This item changed meanwhile; look at it again."


async def _pdf_bytes(item: IntakeItem, storage: Storage) -> bytes:
    """A new PDF item's bytes (400 for another type; 409 once filed or deleted)."""
    if item.status != Status.NEW:
        raise settled(item)
    if item.content_type.split(";")[0].strip().lower() != PDF or not item.page_count:
        raise ApiError(400, ONLY_PDF)
    data = bytearray()
    async with await storage.open_object(item_key(item.object_id)) as chunks:
        async for chunk in chunks:
            data += chunk
    return bytes(data)


async def _in_worker(func: Any, *args: Any) -> Any:
    services = running_services()
    if services is None:
        return func(*args)
    try:
        return await services.workers.run(func, *args, seconds=WORK_SECONDS)
    except WorkerBusy:
        raise ApiError(503, BUSY, {"Retry-After": "60"}) from None
    except (WorkerTimeout, WorkerFailed):
        raise ApiError(422, FAILED) from None
    except Exception as exc:  # noqa: BLE001 - qpdf could not read or write it
        log.info("An intake PDF's pages could not be changed: %s", type(exc).__name__)
        raise ApiError(422, FAILED) from None


def _check_pages(pages: list[int], count: int) -> None:
    for page in pages:
        if not 1 <= page <= count:
            raise ApiError(400, f"This document has pages 1 to {count}; there is no page {page}.")


async def _once(data: bytes) -> AsyncIterator[bytes]:
    yield data


def _part_name(name: str, first: int, last: int) -> str:
    stem = name[:-4] if name.lower().endswith(".pdf") else name
    pages = f"page {first}" if first == last else f"pages {first}-{last}"
    return f"{stem} ({pages}).pdf"


async def split_item(
    item_id: int,
    ranges: list[tuple[int, int]],
    actor: Actor,
    storage: Storage,
    *,
    part_values: list[dict[str, Any]] | None = None,
) -> list[IntakeItem]:
    """Split a new PDF item into one item per page range (1-based, both ends included); the
    original is then deleted with the split as its reason. The parts, in order. part_values:
    each new part's own row values (the routing's: its cover sheet, its problems, its claim)."""
    item = await find_item(item_id)
    data = await _pdf_bytes(item, storage)
    count = int(item.page_count or 0)
    if not 1 <= len(ranges) <= MAX_PARTS:
        raise ApiError(400, f"Give between 1 and {MAX_PARTS} page ranges.")
    for first, last in ranges:
        _check_pages([first, last], count)
        if first > last:
            raise ApiError(400, f"The range {first}-{last} runs backwards.")
    if ranges == [(1, count)]:
        raise ApiError(400, "A split needs a part smaller than the whole document.")
    parts = await _in_worker(extract_pages, data, ranges)
    made: list[IntakeItem] = []
    for index, ((first, last), part) in enumerate(zip(ranges, parts, strict=True)):
        arrival = Arrival(
            item.source,
            _part_name(item.file_name, first, last),
            PDF,
            sender=item.sender,
            subject=item.subject,
            message_id=item.message_id,
        )
        values = part_values[index] if part_values else None
        made.append((await take_in(_once(part), arrival, storage, actor, values=values))[0])
    ids = ", ".join(str(part.id) for part in made)
    async with transaction() as conn:
        values = {
            "status": Status.DELETED,
            "deleted_by_id": actor.user_id,
            "deleted_by_name": actor.name,
            "deleted_at": datetime.now(UTC),
            "deleted_reason": f"Split into items {ids}",
        }
        if not await repository.settle_new(conn, item.id, values):
            raise settled(await repository.item_by_id(item.id, conn))
        spans = ",".join(f"{first}-{last}" for first, last in ranges)
        await record(
            conn,
            actor,
            "intake_split",
            details=f"item={item.id} pages={spans} into={ids.replace(', ', ',')}",
        )
        publish(INTAKE_DELETED, {"id": item.id}, intake_rooms)
    return made


async def rotate_item(
    item_id: int, degrees: int, pages: list[int] | None, actor: Actor, storage: Storage
) -> IntakeItem:
    """Turn a new PDF item's pages (None: all) clockwise by degrees (90, 180 or 270)."""
    item = await find_item(item_id)
    data = await _pdf_bytes(item, storage)
    if pages is not None:
        _check_pages(pages, int(item.page_count or 0))
    turned: bytes = await _in_worker(rotate_pages, data, pages, degrees)
    object_id = new_id()
    try:
        await storage.write_object(item_key(object_id), _once(turned), content_type=PDF)
    except StorageError:
        raise ApiError(503, "The storage is not available; try again.") from None
    committed = False
    try:
        async with transaction() as conn:
            if not await repository.replace_bytes(
                conn, item.id, item.object_id, object_id, len(turned)
            ):
                current = await repository.item_by_id(item.id, conn)
                if current is not None and current.status != Status.NEW:
                    raise settled(current)
                raise ApiError(409, CHANGED)
            which = "all" if pages is None else ",".join(str(page) for page in pages)
            await record(
                conn,
                actor,
                "intake_rotated",
                details=f"item={item.id} pages={which} degrees={degrees}",
            )
            publish(INTAKE_CHANGED, {"id": item.id}, intake_rooms)
        committed = True
    finally:
        stale = item.object_id if committed else object_id
        try:
            await storage.delete_object(item_key(stale))
        except StorageError:
            log.warning("An intake item's replaced bytes stay until the housekeeping runs.")
    return await find_item(item.id)
