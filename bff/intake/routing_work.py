"""The routing's heavy work, in the app's WorkerPool (never the server's process): an item's bytes
copied to a private file (var/jobs/, as the file jobs' are: what a dead process left is removed
there), its thumbnail drawn and stored (bff/intake/thumbnails.py), its barcodes read
(barcodes.read_codes) and its text (the search's extraction, bff/search/extract.py: a PDF's
text layer, else OCR by tesseract, at most OCR_PAGES pages: a record number and a date of birth
are on a letter's first pages). And `excerpts`: the text around a suggestion's evidence, kept
with it (the whole text is not)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any

from bff.intake.barcodes import CodesUnreadable, PageCodes, read_codes
from bff.intake.models import IntakeItem
from bff.intake.pages import PDF
from bff.intake.service import item_key
from bff.intake.suggest import Candidate, Evidence, Suggestion, record_keys, suggest
from bff.intake.thumbnails import draw_ahead
from bff.intake.workspace import copy_into, private_folder
from bff.jobs.work import FileFacts, Unavailable, Unreadable
from bff.search.extract import TextOptions, extract_text
from bff.workers import WorkerBusy, WorkerFailed, WorkerPool, WorkerTimeout
from config.settings import Settings
from storage.base import Storage
from storage.errors import NotFound

CODES_SECONDS = 60.0
TEXT_SECONDS = 120.0
OCR_PAGES = 5
CONTEXT = 120  # characters kept either side of a piece of evidence
MAX_EXCERPT_CHARS = 8_000
SUGGEST_SECONDS = 30.0
CODES_FAILED = "This scan's barcodes could not be read, so it was not routed."
TEXT_FAILED = "This document's text could not be read, so no patient is suggested."
SUGGEST_FAILED = "This document's text could not be searched, so no patient is suggested."
BYTES_GONE = "This item's content is missing from storage: it cannot be routed or filed."


class Busy(Exception):
    """The worker pool is full: the item is given back and tried again later."""


class Unroutable(Exception):
    """This step cannot be done for this item; str() says why, for the inbox."""


class WorkArea:
    """Where the routing's work is done: a private copy, and the worker pool."""

    def __init__(self, settings: Settings, workers: WorkerPool) -> None:
        self.settings = settings
        self.workers = workers

    @asynccontextmanager
    async def copy(self, storage: Storage, item: IntakeItem) -> AsyncIterator[str]:
        """The path of a private copy of item's bytes, removed after the block."""
        async with private_folder(self.settings) as folder:
            path = folder / "content"
            try:
                stream = await storage.open_object(item_key(item.object_id))
            except NotFound:  # a problem for a person, not a retry every claim
                raise Unroutable(BYTES_GONE) from None
            await copy_into(stream, path)
            yield str(path)

    async def _run(self, seconds: float, func: Any, *args: Any) -> Any:
        try:
            return await self.workers.run(func, *args, seconds=seconds)
        except WorkerBusy:
            raise Busy from None

    async def thumbnail(self, storage: Storage, path: str, item: IntakeItem) -> bool:
        """Draw and store the item's thumbnail (bff/intake/thumbnails.py `draw_ahead`: a
        failure to draw is not the routing's); whether one is stored. Busy when the pool is
        full."""
        try:
            return await draw_ahead(item, path, self.workers.run, storage, self.settings)
        except WorkerBusy:
            raise Busy from None

    async def codes(self, path: str, item: IntakeItem) -> list[PageCodes] | None:
        """Each page's barcodes; None for a content without pages to read (a DOCX...)."""
        base = item.content_type.split(";")[0].strip().lower()
        if base != PDF and not base.startswith("image/"):
            return None
        try:
            found: list[PageCodes] = await self._run(CODES_SECONDS, read_codes, path)
        except CodesUnreadable as exc:
            raise Unroutable(f"{CODES_FAILED} {exc}") from None
        except (WorkerTimeout, WorkerFailed):
            raise Unroutable(CODES_FAILED) from None
        except Exception:  # noqa: BLE001 - a file the reader cannot open
            raise Unroutable(CODES_FAILED) from None
        return found

    async def text(self, path: str, item: IntakeItem) -> str:
        """The document's text, its pages one blank line apart."""
        options = TextOptions(
            languages=self.settings.ocr_languages,
            max_ocr_pages=min(OCR_PAGES, self.settings.ocr_max_pages),
            ocr_timeout=TEXT_SECONDS / 2,
        )
        facts = FileFacts(item.file_name, item.content_type, item.size)
        try:
            extracted = await self._run(TEXT_SECONDS, extract_text, path, facts, options)
        except (Unreadable, Unavailable) as exc:
            raise Unroutable(f"{TEXT_FAILED} {exc}") from None
        except (WorkerTimeout, WorkerFailed):
            raise Unroutable(TEXT_FAILED) from None
        return "\n\n".join(text for _, text in extracted.pages)

    async def keys(self, text: str) -> list[str]:
        """The record keys the (untrusted, long) text may hold: suggest.record_keys, in a
        worker, never in the server's event loop."""
        try:
            found: list[str] = await self._run(SUGGEST_SECONDS, record_keys, text)
        except (WorkerTimeout, WorkerFailed):
            raise Unroutable(SUGGEST_FAILED) from None
        return found

    async def suggestion(
        self, text: str, candidates: list[Candidate], order: Any
    ) -> Suggestion | None:
        """suggest.suggest of the text among the candidates (queried by the server), in a
        worker."""
        try:
            found: Suggestion | None = await self._run(
                SUGGEST_SECONDS, suggest, text, candidates, order
            )
        except (WorkerTimeout, WorkerFailed):
            raise Unroutable(SUGGEST_FAILED) from None
        return found


def excerpts(text: str, evidence: Sequence[Evidence]) -> list[dict[str, object]]:
    """The text around each piece of evidence (CONTEXT characters either side, overlapping
    windows merged), each with where it starts in the text: enough to show the evidence
    highlighted in its words. At most MAX_EXCERPT_CHARS in all."""
    windows: list[list[int]] = []
    for piece in sorted(evidence, key=lambda e: (e.start, e.end)):
        start, end = max(0, piece.start - CONTEXT), min(len(text), piece.end + CONTEXT)
        if windows and start <= windows[-1][1]:
            windows[-1][1] = max(windows[-1][1], end)
        else:
            windows.append([start, end])
    kept: list[dict[str, object]] = []
    room = MAX_EXCERPT_CHARS
    for start, end in windows:
        if room <= 0:
            break
        end = min(end, start + room)
        kept.append({"start": start, "text": text[start:end]})
        room -= end - start
    return kept
