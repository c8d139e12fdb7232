"""Splitting an intake PDF into new items by page ranges, and turning its pages (the PDF's own
/Rotate), the pages' work done in the worker pool (pdfwork.py) on a private copy of the PDF,
the parts and the turned PDF written there and streamed back (workspace.py): the server never
holds a PDF whole. The pool bounds each job (its memory, BFF_CONVERSION_MEMORY_MB, and at most
WORK_SECONDS): a PDF over either is a 422 saying which (TOO_MUCH_MEMORY, TOO_SLOW), the
item unchanged; a full pool is a 503 before a byte is copied.

A split takes each part in as an item the way every document is taken in (`service.take_in`:
screened, deduplicated by its bytes, audited `intake_received`), then marks the original
deleted with the split as its reason, audited `intake_split`. The parts are taken in HELD
(repository.HELD: not in the inbox, not routed) and activated (their routing values set, shown)
in the same transaction as the original's conditional UPDATE (only while it is new and has the
bytes split): a split beside a filing, a deletion, another split or a turn loses with a 409 and
its held parts are deleted ("the split ... lost: Already deleted by ...") with their bytes, so
no part of a split that did not happen is ever filed or shown. A crash before that transaction
leaves held parts only: the same split again takes them (the same bytes) and activates them; a
split never done again (its original filed or deleted by a person) leaves them to the
housekeeping, which discards them with their bytes after HELD_GRACE (`discard_stale_parts`; a
settle that finds a part of its own discarded meanwhile is rolled back: 409, split again).

Turning writes the turned PDF as a new object first, then in one transaction points the item at
it (only while the item is new and still has the bytes that were turned) and records
`intake_rotated`; the old bytes are removed after the commit (a crash in between leaves bytes
no item names, which the housekeeping removes). The turned PDF's thumbnail is drawn in the
turn's own place in the pool and stored with the new bytes (bff/intake/thumbnails.py), the old
bytes' removed with them; one that cannot be drawn is not the turn's failure (drawn on demand).
The item's sha256 stays that of the content as received, so the same scan arriving again is
still recognised.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from itertools import pairwise
from pathlib import Path
from typing import Any

from bff.audit.service import Actor, record
from bff.db import transaction
from bff.errors import ApiError
from bff.files.names import new_id
from bff.intake import repository, thumbnails
from bff.intake.filing import settled
from bff.intake.models import IntakeItem, Status
from bff.intake.pages import PDF
from bff.intake.pdfwork import count_pdf_pages, extract_pages, rotate_pages
from bff.intake.service import (
    INTAKE_ACTOR,
    Arrival,
    find_item,
    forget_thumbnail,
    intake_rooms,
    item_key,
    take_in,
)
from bff.intake.workspace import copy_into, file_chunks, private_folder
from bff.live.events import INTAKE_CHANGED, INTAKE_DELETED, publish
from bff.workers import (
    Reservation,
    WorkerBusy,
    WorkerFailed,
    WorkerOutOfMemory,
    WorkerPool,
    WorkerTimeout,
)
from config.settings import Settings
from storage.base import Storage, StorageError
from storage.errors import NotFound

log = logging.getLogger(__name__)

MAX_PARTS = 50
WORK_SECONDS = 60.0  # a job's time at most (the pool's BFF_CONVERSION_SECONDS if shorter)
ONLY_PDF = "Only a PDF's pages can be split or turned."
BUSY = "The server is busy; try again in a minute."
STORAGE_DOWN = "The storage is not available; try again."
BYTES_GONE = "This item's content is missing from storage: it cannot be split or turned."
AFTER = "File it whole, or {verb} it on a computer and upload the result."
TOO_SLOW = "This PDF took too long to {verb} here. " + AFTER
TOO_MUCH_MEMORY = "This PDF needs more memory to {verb} than the server allows. " + AFTER
FAILED = "This PDF could not be {done}: it may be damaged. " + AFTER
CHANGED = "This item changed meanwhile; look at it again."
ONE_PART = "each page can go into one part only."
# A part held this long belongs to a split that will not finish (a split takes minutes at most).
HELD_GRACE = timedelta(hours=1)
ABANDONED = "a split that never finished (its process stopped, and it was not split again)"


class _Pdf:
    """A private copy of a new PDF item (bff/intake/workspace.py) and the item's place in the
    worker pool, where its pages are worked on (bff/intake/pdfwork.py)."""

    def __init__(self, place: Reservation, folder: Path, verb: str) -> None:
        self.place = place
        self.folder = folder
        self.path = folder / "content.pdf"
        self.verb = verb

    async def run(self, func: Any, *args: Any) -> Any:
        """func(*args) in the worker pool, within its limits: a 422 that says why if not."""
        done = "split" if self.verb == "split" else "turned"
        try:
            return await self.place.run(func, *args, seconds=WORK_SECONDS)
        except WorkerTimeout:
            raise ApiError(422, TOO_SLOW.format(verb=self.verb)) from None
        except WorkerOutOfMemory:
            raise ApiError(422, TOO_MUCH_MEMORY.format(verb=self.verb)) from None
        except WorkerFailed:
            raise ApiError(422, FAILED.format(done=done, verb=self.verb)) from None
        except Exception as exc:  # noqa: BLE001 - qpdf could not read or write it
            log.info("An intake PDF's pages could not be changed: %s", type(exc).__name__)
            raise ApiError(422, FAILED.format(done=done, verb=self.verb)) from None

    async def page_count(self, known: int | None) -> int:
        """The PDF's pages: known at its intake, else counted now (within the limits)."""
        if known:
            return known
        return int(await self.run(count_pdf_pages, str(self.path)))


@dataclass(frozen=True)
class Workers:
    """Where an intake PDF's pages are worked on: the app's worker pool, and the settings that
    say where its private copies go."""

    pool: WorkerPool
    settings: Settings


@asynccontextmanager
async def _private_pdf(
    item: IntakeItem, storage: Storage, workers: Workers, verb: str
) -> AsyncIterator[_Pdf]:
    """A new PDF item's private copy with a place in the worker pool, taken before a byte is
    copied (503 at once when the pool is full); the folder is removed after the block."""
    if item.status != Status.NEW:
        raise settled(item)
    if item.content_type.split(";")[0].strip().lower() != PDF:
        raise ApiError(400, ONLY_PDF)
    try:
        place = workers.pool.reserve()
    except WorkerBusy:
        raise ApiError(503, BUSY, {"Retry-After": "60"}) from None
    with place:
        async with private_folder(workers.settings) as folder:
            pdf = _Pdf(place, folder, verb)
            try:
                await copy_into(await storage.open_object(item_key(item.object_id)), pdf.path)
            except NotFound:
                raise ApiError(404, BYTES_GONE) from None
            except StorageError:
                raise ApiError(503, STORAGE_DOWN) from None
            yield pdf


def _check_pages(pages: list[int], count: int) -> None:
    for page in pages:
        if not 1 <= page <= count:
            raise ApiError(400, f"This document has pages 1 to {count}; there is no page {page}.")


def _span(first: int, last: int) -> str:
    return str(first) if first == last else f"{first}-{last}"


def _check_ranges(ranges: list[tuple[int, int]], count: int | None) -> None:
    """400 for ranges that cannot split a document of count pages (None: not known yet); 422
    for ranges that would copy pages: more pages in all than the document has, or two ranges
    sharing a page (each part is a new PDF in var/jobs/ and in storage: "1-50" fifty times
    would write the document fifty times over)."""
    for first, last in ranges:
        if count is not None:
            _check_pages([first, last], count)
        elif min(first, last) < 1:
            raise ApiError(400, f"There is no page {min(first, last)}: pages are numbered from 1.")
        if first > last:
            raise ApiError(400, f"The range {first}-{last} runs backwards.")
    total = sum(last - first + 1 for first, last in ranges)
    if count is not None and total > count:
        raise ApiError(
            422,
            f"These ranges hold {total} pages in all, but this document has {count}: {ONE_PART}",
        )
    ordered = sorted(ranges)
    for (first, last), (after, end) in pairwise(ordered):
        if after <= last:
            raise ApiError(
                422,
                f"The ranges {_span(first, last)} and {_span(after, end)} overlap: {ONE_PART}",
            )
    if count is not None and ranges == [(1, count)]:
        raise ApiError(400, "A split needs a part smaller than the whole document.")


def _part_name(name: str, first: int, last: int) -> str:
    stem = name[:-4] if name.lower().endswith(".pdf") else name
    pages = f"page {first}" if first == last else f"pages {first}-{last}"
    return f"{stem} ({pages}).pdf"


async def split_item(
    item_id: int,
    ranges: list[tuple[int, int]],
    actor: Actor,
    storage: Storage,
    workers: Workers,
    *,
    part_values: list[dict[str, Any]] | None = None,
) -> list[IntakeItem]:
    """Split a new PDF item into one item per page range (1-based, both ends included); the
    original is then deleted with the split as its reason (ranges that overlap, or hold more
    pages in all than the document: 422, nothing done). The parts, in order. part_values:
    each new part's own row values (the routing's: its cover sheet, its problems, its claim),
    set only when the split wins. Each part is taken in HELD (not shown, not routed); the
    original's conditional settle and the parts' activation are one transaction, so a split
    that loses (the original filed, deleted, split or turned meanwhile: 409) or fails part-way
    leaves no part behind: those it held are deleted, their bytes removed."""
    item = await find_item(item_id)
    if not 1 <= len(ranges) <= MAX_PARTS:
        raise ApiError(400, f"Give between 1 and {MAX_PARTS} page ranges.")
    _check_ranges(ranges, item.page_count or None)
    made: list[IntakeItem] = []
    async with _private_pdf(item, storage, workers, "split") as pdf:
        _check_ranges(ranges, await pdf.page_count(item.page_count))
        parts = await pdf.run(extract_pages, str(pdf.path), ranges, str(pdf.folder))
        pdf.place.release()  # the parts are taken in (screened) without holding a worker
        try:
            for (first, last), part in zip(ranges, parts, strict=True):
                arrival = Arrival(
                    item.source,
                    _part_name(item.file_name, first, last),
                    PDF,
                    sender=item.sender,
                    subject=item.subject,
                    message_id=item.message_id,
                )
                held: dict[str, Any] = {"routing": repository.HELD}
                if actor.user_id is None:  # the routing's split: the parts keep their uploader
                    held |= {"received_by_id": item.received_by_id}
                    held |= {"received_by_name": item.received_by_name}
                chunks = file_chunks(Path(part))
                made.append((await take_in(chunks, arrival, storage, actor, values=held))[0])
        except Exception as failure:
            why = failure.message if isinstance(failure, ApiError) else "it failed"
            reason = f"the split of item {item.id} did not finish: {why}"
            await _discard(made, reason, actor, storage)
            raise
    lost = await _settle(item, ranges, made, actor, part_values)
    if lost is not None:
        await _discard(made, f"the split of item {item.id} lost: {lost.message}", actor, storage)
        raise lost
    return made


async def _settle(
    item: IntakeItem,
    ranges: list[tuple[int, int]],
    made: list[IntakeItem],
    actor: Actor,
    part_values: list[dict[str, Any]] | None,
) -> ApiError | None:
    """The original deleted as split and its held parts activated, in one transaction, only
    while the original is new with the bytes split; else the refusal (nothing changed)."""
    ids = ", ".join(str(part.id) for part in made)
    try:
        async with transaction() as conn:
            values = {
                "status": Status.DELETED,
                "deleted_by_id": actor.user_id,
                "deleted_by_name": actor.name,
                "deleted_at": datetime.now(UTC),
                "deleted_reason": f"Split into items {ids}",
            }
            if not await repository.settle_split(conn, item.id, item.object_id, values):
                current = await repository.item_by_id(item.id, conn)
                if current is not None and current.status == Status.NEW:
                    return ApiError(409, CHANGED)  # turned meanwhile: split again, as it is now
                return settled(current)
            for index, part in enumerate(made):
                if await repository.activate_part(
                    conn, part.id, part_values[index] if part_values else {}
                ):
                    publish(INTAKE_CHANGED, {"id": part.id}, intake_rooms)
                    continue
                # Not held any more: an item of the inbox with the same content (its pages are
                # there), or a part held by a split that died, taken again here and discarded
                # meanwhile (`discard_stale_parts`): then its pages would be lost with the
                # original, so nothing of this settle stands.
                current = await repository.item_by_id(part.id, conn)
                if current is None or current.status == Status.DELETED:
                    raise _PartGone
            spans = ",".join(f"{first}-{last}" for first, last in ranges)
            await record(
                conn,
                actor,
                "intake_split",
                details=f"item={item.id} pages={spans} into={ids.replace(', ', ',')}",
            )
            publish(INTAKE_DELETED, {"id": item.id}, intake_rooms)
    except _PartGone:
        return ApiError(409, CHANGED)
    return None


class _PartGone(Exception):
    """A split's part was discarded before the split settled: the settle is rolled back."""


async def _discard(parts: list[IntakeItem], reason: str, actor: Actor, storage: Storage) -> int:
    """Delete the parts of a split that did not happen, those still held (never shown: each
    by a conditional UPDATE, so a part activated meanwhile stays), with the reason, and remove
    their bytes; how many."""
    if not parts:
        return 0
    gone: list[IntakeItem] = []
    async with transaction() as conn:
        for part in parts:
            values = {
                "status": Status.DELETED,
                "routing": repository.DONE,
                "deleted_by_id": actor.user_id,
                "deleted_by_name": actor.name,
                "deleted_at": datetime.now(UTC),
                "deleted_reason": reason[:500],
            }
            if await repository.discard_held(conn, part.id, values):
                await record(
                    conn,
                    actor,
                    "intake_deleted",
                    details=f"item={part.id} source={part.source.value} reason={reason}",
                )
                gone.append(part)
    for part in gone:
        try:
            await storage.delete_object(item_key(part.object_id))
        except StorageError:
            log.warning("A split's discarded part keeps its bytes until the housekeeping runs.")
            continue
        await forget_thumbnail(storage, part.object_id)  # a part routed meanwhile may have one
        await repository.forget_bytes(part.id)
    return len(gone)


async def discard_stale_parts(storage: Storage, now: datetime | None = None) -> int:
    """The housekeeping's: discard the parts held longer than HELD_GRACE (a split whose process
    died between its parts, and which was not split again: its original filed or deleted by a
    person, or routed otherwise), never shown, with their bytes; how many. A split done again
    later takes its parts in anew."""
    cutoff = (now or datetime.now(UTC)) - HELD_GRACE
    stale = await repository.held_before(cutoff, 500)
    return await _discard(stale, ABANDONED, INTAKE_ACTOR, storage)


async def rotate_item(
    item_id: int,
    degrees: int,
    pages: list[int] | None,
    actor: Actor,
    storage: Storage,
    workers: Workers,
) -> IntakeItem:
    """Turn a new PDF item's pages (None: all) clockwise by degrees (90, 180 or 270)."""
    item = await find_item(item_id)
    if pages is not None and item.page_count:
        _check_pages(pages, item.page_count)
    object_id = new_id()
    async with _private_pdf(item, storage, workers, "turn") as pdf:
        if pages is not None:
            _check_pages(pages, await pdf.page_count(item.page_count))
        out = pdf.folder / "turned.pdf"
        size = int(await pdf.run(rotate_pages, str(pdf.path), pages, degrees, str(out)))
        # The turned PDF's thumbnail, in the same place (None: not drawn; drawn on demand).
        picture = await thumbnails.draw(str(out), PDF, size, pdf.place.run, workers.settings)
        pdf.place.release()
        try:
            await storage.write_object(item_key(object_id), file_chunks(out), content_type=PDF)
        except StorageError:
            raise ApiError(503, STORAGE_DOWN) from None
    committed = False
    try:
        if picture is not None:  # removed with the new bytes if the turn does not commit
            await thumbnails.store(storage, object_id, picture)
        async with transaction() as conn:
            if not await repository.replace_bytes(conn, item.id, item.object_id, object_id, size):
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
        await forget_thumbnail(storage, stale)
    return await find_item(item.id)
