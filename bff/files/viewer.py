"""The in-app viewer: opening a file is one audited view, and what the viewer then loads (a PDF's
pages rendered as images, an image's or a text's bytes) comes under a signed link of that
viewer session, covered by that one audit entry.

`open_viewer` authorises nothing itself (the route's `@allow` did), records `file_view`
("in the viewer") and answers what kind of viewer to show with links signed for the caller's
session and this content version (purpose `.bff-viewer`, BFF_PREVIEW_LINK_SECONDS): a page
template with `{page}` and `{width}`, or the content's link. No PDF reaches the browser: its
pages are rendered in the worker pool (bff/files/previews.py) at a few snapped widths and kept
in a bounded in-memory cache per process (`PageCache`), so a page seen again is served at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import tempfile
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Literal, TypeVar
from urllib.parse import quote

from cachetools import LRUCache

from bff.audit.service import Actor, record_alone
from bff.auth.links import sign_link
from bff.containers.models import Folder
from bff.errors import ApiError
from bff.files import preview_repository
from bff.files.previews import (
    PAGE_OUTSIDE,
    PAGE_WIDTHS,
    TOO_LARGE,
    PreviewRefused,
    base_type,
    pdf_page,
    pdf_page_count,
    snap_width,
)
from bff.files.service import FILE_NOT_FOUND, get_file
from bff.files.thumbnails import MB, content_id, in_worker
from bff.jobs.service import work_dir
from bff.workers import WorkerBusy, WorkerFailed, WorkerPool, WorkerTimeout
from config.settings import Settings
from storage.base import ObjectKey, Storage

T = TypeVar("T")

VIEWER_LINK = ".bff-viewer"
IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp", "image/bmp"})
TEXT_TYPES = frozenset({"text/plain", "text/csv"})
TEXT_MAX_BYTES = 5 * MB  # larger text files open as "other" (Open original)
FILE_CHANGED = "This file has changed since it was opened. Please open it again."
NOT_A_PDF = "This file has no pages to show."
BUSY = "The server is busy showing other files. Please try again in a moment."
BUSY_RETRY_SECONDS = "5"
PAGE_TOO_SLOW = "This page took too long to show. Please open the original instead."
PAGE_FAILED = "This page could not be shown. Please open the original instead."

Kind = Literal["image", "pdf", "text", "other"]


def kind_of(content_type: str, size: int, max_bytes: int) -> Kind:
    """How the viewer shows a file of this type and size."""
    base = base_type(content_type)
    if base == "application/pdf" and size <= max_bytes:
        return "pdf"
    if base in IMAGE_TYPES and size <= max_bytes:
        return "image"
    if base in TEXT_TYPES and size <= TEXT_MAX_BYTES:
        return "text"
    return "other"


@dataclass(frozen=True)
class ViewerSession:
    """What open_viewer answers (bff/files/schemas.py ViewerOpen)."""

    kind: Kind
    version_id: str
    expires_at: datetime
    page_count: int | None = None
    page_url: str | None = None
    content_url: str | None = None
    reason: str | None = None


PageKey = tuple[str, str, str, str, int, int]  # container, folder, name, version, page, width


class PageCache:
    """Rendered pages of this process, least recently used dropped beyond max_bytes; one
    rendering at a time per page (requests for a page being rendered wait for it)."""

    def __init__(self, max_bytes: int) -> None:
        self._pages: LRUCache[PageKey, bytes] = LRUCache(max(max_bytes, 1), getsizeof=len)
        self._max_bytes = max_bytes
        self._rendering: dict[PageKey, asyncio.Future[bytes]] = {}

    def get(self, key: PageKey) -> bytes | None:
        """A cached page, or None."""
        return self._pages.get(key)

    async def get_or_render(self, key: PageKey, render: Callable[[], Awaitable[bytes]]) -> bytes:
        """The cached page, or render() it (once, whoever else asks meanwhile)."""
        found = self._pages.get(key)
        if found is not None:
            return found
        if (pending := self._rendering.get(key)) is not None:
            return await asyncio.shield(pending)
        future: asyncio.Future[bytes] = asyncio.get_running_loop().create_future()
        self._rendering[key] = future
        try:
            page = await render()
        except BaseException as exc:
            future.set_exception(exc)
            future.exception()  # retrieved: nobody else may be waiting
            raise
        finally:
            self._rendering.pop(key, None)
        future.set_result(page)
        if 0 < len(page) <= self._max_bytes:
            self._pages[key] = page
        return page


def _base(container: str, folder: str, name: str, version_id: str) -> str:
    where = "/".join(quote(part, safe="") for part in (container, folder, name))
    return f"/api/blobs/{where}/viewer/{quote(version_id, safe='')}"


async def _copy(storage: Storage, where: tuple[str, str, str], target: Path) -> None:
    """The file's current bytes into target, streamed (never whole in the server's memory)."""
    stream = await storage.open_object(ObjectKey.file(*where))
    with target.open("wb") as out:
        async with stream:
            async for chunk in stream:
                await asyncio.to_thread(out.write, chunk)


async def _rendered(
    workers: WorkerPool | None,
    settings: Settings,
    storage: Storage,
    where: tuple[str, str, str],
    func: Callable[..., T],
    *args: Any,
) -> T:
    """func(path of a private copy of the file, *args) in the worker pool: its place taken
    before anything is read (requests beyond the pool's bound are refused with WorkerBusy at
    once), the copy streamed to the jobs' work directory (bff/jobs/: what a dead process left
    there is removed) and read there by the worker, so the server holds none of it."""
    with workers.reserve() if workers is not None else contextlib.nullcontext() as place:
        folder = Path(tempfile.mkdtemp(prefix=f"{os.getpid()}-", dir=work_dir(settings)))
        try:
            content = folder / "content"
            await _copy(storage, where, content)
            if place is None:
                return await in_worker(None, settings.preview_seconds, func, str(content), *args)
            return await place.run(func, str(content), *args, seconds=settings.preview_seconds)
        finally:
            await asyncio.to_thread(shutil.rmtree, folder, True)


async def _page_count(
    storage: Storage, settings: Settings, workers: WorkerPool | None, folder: Folder, name: str
) -> int:
    where = (folder.container.name, folder.name, name)
    try:
        return await _rendered(workers, settings, storage, where, pdf_page_count)
    except WorkerBusy:
        raise ApiError(503, BUSY, {"Retry-After": BUSY_RETRY_SECONDS}) from None
    except (WorkerTimeout, WorkerFailed):
        raise PreviewRefused(PAGE_FAILED) from None


async def open_viewer(
    folder: Folder,
    name: str,
    *,
    actor: Actor,
    session_id: str,
    settings: Settings,
    storage: Storage,
    workers: WorkerPool | None,
) -> ViewerSession:
    """Open a file in the viewer: one audited view (`file_view`, "in the viewer") and the
    links its pages or content load under, for this session and content version."""
    row = await get_file(folder, name)
    container = folder.container.name
    version_id = content_id(row.version_id)
    max_bytes = settings.preview_max_mb * MB
    kind = kind_of(row.content_type, row.size, max_bytes)
    reason = TOO_LARGE if kind == "other" and row.size > max_bytes else None
    page_count = None
    if kind == "pdf":
        preview = await preview_repository.current_content(container, folder.name, name)
        if preview and preview["preview_version"] == version_id and preview["page_count"]:
            page_count = int(preview["page_count"])
        else:
            try:
                page_count = await _page_count(storage, settings, workers, folder, name)
            except PreviewRefused as exc:
                kind, reason = "other", str(exc)
    await record_alone(
        actor,
        "file_view",
        container=container,
        folder=folder.name,
        blob=name,
        details="in the viewer",
    )
    link, expires = sign_link(
        settings,
        session_id,
        (VIEWER_LINK, container, folder.name, name, version_id),
        seconds=settings.preview_link_seconds,
    )
    base = _base(container, folder.name, name, version_id)
    if kind == "pdf":
        return ViewerSession(
            kind,
            version_id,
            expires,
            page_count=page_count,
            page_url=f"{base}/pages/{{page}}?width={{width}}&link={link}",
        )
    if kind in ("image", "text"):
        return ViewerSession(kind, version_id, expires, content_url=f"{base}/content?link={link}")
    return ViewerSession("other", version_id, expires, reason=reason)


async def current_or_404(container: str, folder: str, name: str, version_id: str) -> dict[str, Any]:
    """The file's current content if it is still the version the viewer opened, else 404."""
    found = await preview_repository.current_content(container, folder, name)
    if found is None:
        raise ApiError(404, FILE_NOT_FOUND)
    if content_id(str(found["version_id"])) != version_id:
        raise ApiError(404, FILE_CHANGED)
    return found


async def page_image(
    container: str,
    folder: str,
    name: str,
    version_id: str,
    page: int,
    width: int,
    *,
    settings: Settings,
    storage: Storage,
    workers: WorkerPool | None,
    cache: PageCache,
) -> bytes:
    """Page `page` of a PDF's current content (the version the viewer opened) as WebP, at the
    snapped width; from the cache when it was rendered before."""
    width = snap_width(width)
    key: PageKey = (container, folder, name, version_id, page, width)
    cached = cache.get(key)
    found = await current_or_404(container, folder, name, version_id)
    if base_type(str(found["content_type"])) != "application/pdf":
        raise ApiError(404, NOT_A_PDF)
    if (
        found["page_count"]
        and found["preview_version"] == version_id
        and page > int(found["page_count"])
    ):
        raise ApiError(404, PAGE_OUTSIDE)
    if cached is not None:
        return cached
    if int(found["size"]) > settings.preview_max_mb * MB:
        raise ApiError(422, TOO_LARGE)

    def render() -> Awaitable[bytes]:
        where = (container, folder, name)
        return _rendered(workers, settings, storage, where, pdf_page, page, width)

    try:
        return await cache.get_or_render(key, render)
    except PreviewRefused as exc:
        raise ApiError(404 if str(exc) == PAGE_OUTSIDE else 422, str(exc)) from None
    except WorkerBusy:
        raise ApiError(503, BUSY, {"Retry-After": BUSY_RETRY_SECONDS}) from None
    except WorkerTimeout:
        raise ApiError(422, PAGE_TOO_SLOW) from None
    except WorkerFailed:
        raise ApiError(422, PAGE_FAILED) from None


__all__ = ["PAGE_WIDTHS", "PageCache", "ViewerSession", "open_viewer", "page_image"]
