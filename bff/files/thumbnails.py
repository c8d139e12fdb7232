"""Thumbnails: a small WebP of each file's current content (a PDF's first page, an image),
made by a durable background job per file version and shown in the folder listing.

- The "thumbnail" kind of the one job mechanism (bff/jobs/): recorded with every new content,
  rendered in the jobs' worker pool (bff/files/previews.py: time and memory limits, bounded),
  never in the server process; a refusal (a damaged PDF, an image bomb, a file over
  BFF_PREVIEW_MAX_MB) fails the job at once with its reason, kept in `file_previews`.
- The picture is stored at `{container}/{folder}/.bff-previews/{file}/{versionId}.webp`
  (storage's reserved prefix: never listed, never indexed as a file) before any transaction
  (a storage write inside one held SQLite's one connection as long as it took), then recorded
  in `file_previews` by the transaction that checks the content is still current. Until then
  the object is garbage, and recorded as such first (bff/files/removals.py): that transaction
  forgets the record; a thumbnail made for a content replaced meanwhile is removed at once
  (`drop`), or by the sweep after a process died in between. Nothing serves an object no
  `file_previews` row names.
- Only a file's current content has one: an overwrite, a version restore and a delete to the
  trash record the old thumbnail for removal in their own transaction (bff/files/removals.py),
  so it goes with the content it belongs to; a restore brings a new job.
- The listing gives each file with a thumbnail a signed link (`preview`) for the caller's
  session, stable for a few minutes so the browser's cache keeps the pictures; the `file_list`
  audit entry of that listing covers the pictures (they show what the listing names, small).
- When one is ready, `file:preview` tells the folder's room.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, datetime
from typing import Any, TypeVar
from urllib.parse import quote

from tortoise.backends.base.client import BaseDBAsyncClient

from bff.audit.service import Actor
from bff.auth.links import sign_link
from bff.containers.models import Folder
from bff.db import transaction
from bff.errors import ApiError
from bff.files import preview_repository, removals
from bff.files.models import StoredFile
from bff.files.names import preview_key
from bff.files.pending_repository import delete_removals, removals_where
from bff.files.previews import has_preview, thumbnail_job
from bff.files.repository import folder_by_id, scan_state_of
from bff.files.service import FILE_NOT_FOUND, announce_in, current_content
from bff.jobs.models import KIND_THUMBNAIL
from bff.jobs.repository import Claimed
from bff.jobs.service import Kind, held_turn, register
from bff.live.events import FILE_PREVIEW
from bff.workers import WorkerPool
from config.settings import Settings
from storage.base import NotFound, ObjectKey, Storage

log = logging.getLogger(__name__)

T = TypeVar("T")

LEGACY_VERSION_ID = "initial"  # as bff/files/versions.py names a file indexed before versions
# The purpose signed into a thumbnail's link (bff/auth/links.py): it opens nothing else.
THUMBNAIL_LINK = ".bff-thumbnail"
# A thumbnail link is valid this long, rounded up to LINK_STEP: the listings of one session
# within a step carry the same URLs, so the browser's cache keeps the pictures.
THUMBNAIL_LINK_SECONDS = 900
THUMBNAIL_LINK_STEP = 300
WEBP = "image/webp"
MB = 1024 * 1024
THUMBNAIL_NOT_FOUND = "Thumbnail not found"


def content_id(version_id: str) -> str:
    """The id of a file's current content ('' for a file indexed before versions existed)."""
    return version_id or LEGACY_VERSION_ID


def wants(row: StoredFile) -> bool:
    """Whether a file gets a thumbnail job: PDFs and ordinary images, not the profile image
    (already small, shown by its own route)."""
    return not row.is_profile_image and has_preview(row.content_type)


async def in_worker(
    workers: WorkerPool | None, seconds: float, func: Callable[..., T], *args: Any
) -> T:
    """func(*args) in the worker pool (at most `seconds`), or in a thread outside an app (the
    command line)."""
    if workers is None:
        return await asyncio.to_thread(func, *args)
    return await workers.run(func, *args, seconds=seconds)


def options(settings: Settings) -> int:
    """What the work is given: the largest file it renders (BFF_PREVIEW_MAX_MB)."""
    return settings.preview_max_mb * MB


def _key(job: Claimed) -> ObjectKey:
    where = ObjectKey.folder(job.container, job.folder)
    return preview_key(where, job.name, content_id(job.version_id))


async def keep(storage: Storage, job: Claimed, result: tuple[bytes, int | None]) -> None:
    """Store the thumbnail, outside any transaction: recorded for removal first (in a short
    turn of the job's own, which also checks the content is still current), so that it never
    outlives a job that does not record it (`store` forgets the record)."""
    key = _key(job)
    async with held_turn(job) as conn:
        await removals.defer(conn, job.folder_id, [key])
    await storage.write_object(key, _once(result[0]), content_type=WEBP)


async def _recorded(conn: BaseDBAsyncClient, job: Claimed) -> list[int]:
    """The removals recorded for the job's thumbnail (by keep, this attempt or a dead one's)."""
    path = "/".join(_key(job).inner)
    return [row.id for row in await removals_where(conn, folder_id=job.folder_id, path=path)]


async def drop(storage: Storage, job: Claimed) -> None:
    """The job was superseded after keep: remove its thumbnail now, unless the file's current
    content is still the job's (another process's claim of the same content)."""
    async with transaction() as conn:
        ids = await _recorded(conn, job)
    await removals.carry_out(storage, await folder_by_id(job.folder_id), ids)


async def store(
    conn: BaseDBAsyncClient, job: Claimed, result: tuple[bytes, int | None], seconds: float
) -> None:
    """Record the file's thumbnail (and a PDF's page count), no longer to be removed, and
    tell the folder's room."""
    await delete_removals(conn, await _recorded(conn, job))
    await preview_repository.put_preview(
        conn,
        job.file_id,
        {
            "version_id": content_id(job.version_id),
            "ready": True,
            "reason": "",
            "page_count": result[1],
            "created_at": datetime.now(UTC),
        },
    )
    scan_state = await scan_state_of(conn, job.file_id)  # held: the admins' only
    announce_in(
        FILE_PREVIEW, job.folder_id, job.container, job.folder, job.name, scan_state=scan_state
    )


async def failed(conn: BaseDBAsyncClient, job: Claimed, reason: str) -> None:
    """The file can have no thumbnail (a damaged PDF, an image bomb): why, for that content."""
    await preview_repository.put_preview(
        conn,
        job.file_id,
        {
            "version_id": content_id(job.version_id),
            "ready": False,
            "reason": reason[:255],
            "page_count": None,
            "created_at": datetime.now(UTC),
        },
    )


async def forget(conn: BaseDBAsyncClient, file_id: int, follows: bool) -> None:
    """Drop the preview row of an earlier content, whether or not a new one follows (its
    object was recorded for removal by the change itself: bff/files/versions.py
    `thumbnail_of`)."""
    await preview_repository.drop_preview(conn, file_id)


register(
    Kind(
        name=KIND_THUMBNAIL,
        wants=wants,
        work=thumbnail_job,
        keep=keep,
        drop=drop,
        store=store,
        failed=failed,
        forget=forget,
        options=options,
        worker_modules=("bff.files.previews",),
    )
)


async def _once(data: bytes) -> AsyncIterator[bytes]:
    yield data


def thumbnail_url(
    settings: Settings, session_id: str, container: str, folder: str, name: str, version_id: str
) -> str:
    """The signed link to a file's thumbnail for one session (bff/auth/links.py)."""
    value, _ = sign_link(
        settings,
        session_id,
        (THUMBNAIL_LINK, container, folder, name, version_id),
        seconds=THUMBNAIL_LINK_SECONDS,
        step=THUMBNAIL_LINK_STEP,
    )
    where = "/".join(quote(part, safe="") for part in (container, folder, name))
    return f"/api/blobs/{where}/thumbnail/{quote(version_id, safe='')}?link={value}"


def listing_links(
    folder: Folder, settings: Settings, session_id: str
) -> Callable[[list[StoredFile]], Awaitable[dict[str, str]]]:
    """What gives a listing of folder its files' thumbnail links (for those whose current
    content has one), for one session (bff/files/service.py `folder_listing`)."""

    async def links(rows: list[StoredFile]) -> dict[str, str]:
        ready = await preview_repository.previews_of(folder.id)
        container = folder.container.name
        return {
            row.name: thumbnail_url(settings, session_id, container, folder.name, row.name, v)
            for row in rows
            if ready.get(row.name) == (v := content_id(row.version_id), True)
        }

    return links


async def read_thumbnail(
    storage: Storage, container: str, folder: str, name: str, version_id: str, actor: Actor
) -> bytes:
    """The stored thumbnail of a file's content, if that content is still current, actor may
    see it and it has one (404 otherwise: the listing gives a new link when the file
    changes)."""
    found = await current_content(container, folder, name, actor)
    if (
        found is None
        or content_id(str(found["version_id"])) != version_id
        or not found["preview_ready"]
        or found["preview_version"] != version_id
    ):
        raise ApiError(404, THUMBNAIL_NOT_FOUND if found else FILE_NOT_FOUND)
    try:
        key = preview_key(ObjectKey.folder(container, folder), name, version_id)
        stream = await storage.open_object(key)
    except NotFound:
        log.warning("A recorded thumbnail is missing from storage; storage reindex remakes it.")
        raise ApiError(404, THUMBNAIL_NOT_FOUND) from None
    async with stream:
        return await stream.read_all()
