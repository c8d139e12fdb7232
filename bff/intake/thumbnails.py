"""An intake item's thumbnail (issue 51): page 1 of a PDF, or an image, as a small WebP, the
way a file's thumbnail is made (bff/files/previews.py `thumbnail`: THUMBNAIL_SIZE px on its
long side, a damaged PDF or an image bomb refused with a reason).

Drawn ahead and stored, as a file's is, so that opening an inbox of many items needs no place in
the worker pool: the intake's routing (bff/intake/routing.py) draws it for each item that stays
in the inbox (before its text is read; never one its sheet files or a batch it splits, whose
parts are items routed in turn), from the private copy it makes anyway, and a turn draws the
turned PDF's in its own place in the pool (bff/intake/reshaping.py); both in the app's
WorkerPool (the intake's background work has no workers of its own), within the viewer's bounds:
BFF_PREVIEW_SECONDS and the pool's memory per drawing, only types with a preview, items over
BFF_PREVIEW_MAX_MB none. It is kept beside the item's bytes at `.bff-intake/.bff-
previews/{object_id}.webp` (service.thumbnail_key), named by the content, so new bytes (a turn)
have a new one. A drawing that fails is no failure of the intake: logged by its exception's type
only, the item goes on without one. Whatever removes an item's bytes removes their thumbnail too
(a filing, the purge of a deleted item's, a turn's old bytes, a discarded split part's); one a
crash or a failed removal leaves, or one drawn while its item was filed or turned (the routing
removes that itself once it sees it), names bytes no item names, and the housekeeping's sweep
removes it (service.sweep_orphans).

GET .../thumbnail serves the stored picture when there is one; when there is none (an item from
before thumbnails were stored, one not routed yet, a drawing that failed) it is drawn on demand
as before: in the WorkerPool on a private copy of the item's bytes (workspace.py: never whole
in the server's memory), a place in the pool taken before a byte is copied (503 when it is
full), within the same bounds, and stored as the routing's would be (a burst of first loads
right after a batch arrives draws each once; the routing then finds it). A drawn one is kept in
the process's `PageCache` (bff/files/viewer.py) per content version, a refusal remembered as
the viewer's are; the stored one is looked for first, so a refusal remembered never hides a
picture the routing stored since. Other types (a .docx: files have
no thumbnail of it either) have none; the inbox shows their type.

The inbox's listing gives each item that has one a link signed for the caller's session
(THUMBNAIL_LINK's purpose: it opens nothing else), its content version in the URL, stable for
a few minutes as a file thumbnail's is, so the browser's cache keeps the picture (private) and a
live refetch of the inbox fetches none again. Each picture served is audited `intake_view`
("thumbnail") in the item's folder, as every read of an item is (bff/intake/access.py): a
file's thumbnail is covered by its folder's `file_list`, but the inbox's `intake_list` names no
folder, and a patient's access report must show who saw page 1 of a document about them."""

from __future__ import annotations

import hashlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from bff.audit.service import Actor
from bff.auth.links import sign_link
from bff.errors import ApiError
from bff.files.previews import (
    NOT_PREVIEWABLE,
    THUMBNAIL_SIZE,
    TOO_LARGE,
    PreviewRefused,
    has_preview,
    thumbnail,
)
from bff.files.thumbnails import MB, THUMBNAIL_LINK_SECONDS, THUMBNAIL_LINK_STEP, WEBP
from bff.files.viewer import PageCache, PageKey, render_errors
from bff.intake import access, repository
from bff.intake.models import IntakeItem, Status
from bff.intake.repository import GONE
from bff.intake.service import (
    INTAKE_AREA,
    find_item,
    forget_thumbnail,
    item_key,
    thumbnail_key,
)
from bff.intake.workspace import copy_into, private_folder
from bff.workers import WorkerBusy, WorkerFailed, WorkerPool, WorkerTimeout
from config.settings import Settings
from storage.base import Storage, StorageError
from storage.errors import NotFound

log = logging.getLogger(__name__)

# The purpose signed into a thumbnail's link (bff/auth/links.py): it opens nothing else.
THUMBNAIL_LINK = ".bff-intake-thumbnail"
CONTENT_GONE = "This item's content is no longer kept, so it has no thumbnail."
STORAGE_DOWN = "The storage is not available; try again."
TOO_SLOW = "This document's first page took too long to draw."
FAILED = "This document's first page could not be drawn: it may be damaged."
TOO_MUCH_MEMORY = "This document's first page needs more memory to draw than the server allows."


def version_of(item: IntakeItem) -> str:
    """The item's content version as its thumbnail's URL names it: new bytes (a turn), a new
    URL, so a browser never keeps the picture of bytes the item no longer has."""
    return hashlib.sha256(item.object_id.encode()).hexdigest()[:16]


def has_thumbnail(item: IntakeItem, settings: Settings) -> bool:
    """Whether the inbox links a thumbnail for item: its bytes still here (not filed, not
    removed), of a type that has one (a PDF, an ordinary image), within BFF_PREVIEW_MAX_MB."""
    return (
        item.status != Status.FILED
        and not item.object_id.startswith(GONE)
        and has_preview(item.content_type)
        and item.size <= settings.preview_max_mb * MB
    )


Links = Callable[[IntakeItem], str | None]


def links(settings: Settings, session_id: str) -> Links:
    """What gives each item of a listing its thumbnail's link for one session (None: none)."""

    def link(item: IntakeItem) -> str | None:
        if not has_thumbnail(item, settings):
            return None
        value, _ = sign_link(
            settings,
            session_id,
            (THUMBNAIL_LINK, str(item.id)),
            seconds=THUMBNAIL_LINK_SECONDS,
            step=THUMBNAIL_LINK_STEP,
        )
        return f"/api/intake/items/{item.id}/thumbnail?v={version_of(item)}&link={value}"

    return link


# --- Drawn ahead (the routing, a turn) and stored beside the item's bytes ----------------------

# What runs a drawing in the worker pool: WorkerPool.run, or a Reservation's run.
Run = Callable[..., Awaitable[Any]]


def wanted(content_type: str, size: int, settings: Settings) -> bool:
    """Whether content of this type and size gets a thumbnail: a type with a preview (a PDF,
    an ordinary image), within BFF_PREVIEW_MAX_MB."""
    return has_preview(content_type) and size <= settings.preview_max_mb * MB


async def draw(
    path: str, content_type: str, size: int, run: Run, settings: Settings
) -> bytes | None:
    """The thumbnail of the content copied to path, drawn by run within BFF_PREVIEW_SECONDS
    (and the pool's memory); None for content that gets none (`wanted`) or that could not be
    drawn (a damaged PDF, out of time or memory: logged by the exception's type only; the GET
    draws it on demand, and answers why it cannot). WorkerBusy is the caller's."""
    if not wanted(content_type, size, settings):
        return None
    try:
        picture, _ = await run(thumbnail, path, content_type, seconds=settings.preview_seconds)
    except WorkerBusy:
        raise
    except Exception as exc:  # noqa: BLE001 - whatever a PDF or image does: the item goes on
        log.info("An intake thumbnail was not drawn ahead: %s", type(exc).__name__)
        return None
    return bytes(picture)


async def _once(data: bytes) -> AsyncIterator[bytes]:
    yield data


async def store(storage: Storage, object_id: str, picture: bytes) -> bool:
    """Keep picture as the thumbnail of the bytes `object_id`; whether it was (a storage
    failure is logged: the GET draws it on demand)."""
    try:
        await storage.write_object(thumbnail_key(object_id), _once(picture), content_type=WEBP)
    except (StorageError, OSError) as exc:
        log.warning("An intake thumbnail could not be stored: %s", type(exc).__name__)
        return False
    return True


async def stored(storage: Storage, object_id: str) -> bytes | None:
    """The stored thumbnail of the bytes `object_id`, or None when there is none (StorageError
    when storage cannot say)."""
    try:
        stream = await storage.open_object(thumbnail_key(object_id))
    except NotFound:
        return None
    async with stream:
        picture = await stream.read_all()
    if picture[:4] != b"RIFF" or picture[8:12] != b"WEBP":  # never served: drawn again
        log.warning("A stored intake thumbnail is not a WebP; drawing it again.")
        return None
    return picture


async def _still_has(item: IntakeItem) -> bool:
    """Whether item still has the bytes it had (not filed, not turned, not purged)."""
    current = await repository.item_by_id(item.id)
    return (
        current is not None
        and current.status != Status.FILED
        and current.object_id == item.object_id
    )


async def draw_ahead(
    item: IntakeItem, path: str, run: Run, storage: Storage, settings: Settings
) -> bool:
    """The routing's: draw and store the thumbnail of item's bytes, copied to path, unless it
    is stored already (a routing taken again); whether one is stored now. A filing or a turn
    that removed the item's bytes while it was drawn removed no thumbnail (there was none yet),
    so it is removed here once seen; WorkerBusy is the caller's (tried again later)."""
    if not wanted(item.content_type, item.size, settings):
        return False
    try:
        await storage.stat_object(thumbnail_key(item.object_id))
        return True
    except NotFound:
        pass
    except (StorageError, OSError):
        return False  # storage cannot say now: the GET draws it on demand
    picture = await draw(path, item.content_type, item.size, run, settings)
    if picture is None or not await store(storage, item.object_id, picture):
        return False
    if not await _still_has(item):
        await forget_thumbnail(storage, item.object_id)
        return False
    return True


# --- Drawn on demand (items without a stored one) ---------------------------------------------


async def _drawn(item: IntakeItem, storage: Storage, settings: Settings, pool: WorkerPool) -> bytes:
    """The thumbnail drawn in the worker pool from a private copy of the item's bytes."""
    with pool.reserve() as place:  # before a byte is copied: WorkerBusy when the pool is full
        async with private_folder(settings) as folder:
            path = folder / "content"
            await copy_into(await storage.open_object(item_key(item.object_id)), path)
            picture, _ = await place.run(
                thumbnail, str(path), item.content_type, seconds=settings.preview_seconds
            )
            return picture


# What drawing a thumbnail may meet; anything else is logged (by its type only) and refused.
EXPECTED = (PreviewRefused, WorkerBusy, WorkerTimeout, WorkerFailed, StorageError, OSError)


def _refusal(exc: Exception) -> ApiError:
    """The answer to a thumbnail that could not be drawn: a reason a person can read."""
    if isinstance(exc, PreviewRefused | WorkerBusy | WorkerTimeout | WorkerFailed):
        return render_errors(exc, TOO_SLOW, TOO_MUCH_MEMORY, FAILED)
    if isinstance(exc, NotFound):
        return ApiError(404, CONTENT_GONE)
    if isinstance(exc, StorageError | OSError):
        return ApiError(503, STORAGE_DOWN)
    return ApiError(422, FAILED)


async def item_thumbnail(
    item_id: int,
    actor: Actor,
    *,
    settings: Settings,
    storage: Storage,
    workers: WorkerPool,
    cache: PageCache,
) -> bytes:
    """An item's thumbnail (WebP): the stored one, else drawn now; audited `intake_view`
    ("thumbnail") once served: 404 for an unknown item or one whose bytes are gone, 410 once
    filed (read in the folder), 422 with the reason for a type without one, one too large, or
    a document that cannot be drawn (damaged, out of time or memory), 503 when none is stored
    and the pool is full."""
    item = await find_item(item_id)
    access.readable(item)
    if item.object_id.startswith(GONE):
        raise ApiError(404, CONTENT_GONE)
    if not has_preview(item.content_type):
        raise ApiError(422, NOT_PREVIEWABLE)
    if item.size > settings.preview_max_mb * MB:
        raise ApiError(422, TOO_LARGE)
    key: PageKey = (INTAKE_AREA, "", str(item.id), item.object_id, 1, THUMBNAIL_SIZE)

    async def drawn() -> bytes:
        """Drawn now, and stored as the routing's would be: a burst of first loads before the
        routing has drawn it draws each once (the routing then finds it stored)."""
        picture = await _drawn(item, storage, settings, workers)
        if await store(storage, item.object_id, picture) and not await _still_has(item):
            await forget_thumbnail(storage, item.object_id)  # filed or turned meanwhile
        return picture

    try:
        # The stored one first (no place in the pool), also when a drawing was refused before
        # (the cache remembers a refusal for minutes; the routing may have stored one since).
        picture = await stored(storage, item.object_id) or await cache.get_or_render(key, drawn)
    except Exception as exc:  # noqa: BLE001 - whatever a PDF or image does: never a 500
        refusal = _refusal(exc)
        if not isinstance(exc, EXPECTED):
            log.warning("An intake thumbnail could not be drawn: %s", type(exc).__name__)
        raise refusal from None
    await access.record_read(actor, item, "thumbnail")
    return picture
