"""The in-app viewer: opening a file is one audited view, and what the viewer then loads (a PDF's
pages rendered as images, an image's or a text's bytes, a reduced copy of an image too large
for the browser) comes under a signed link of that viewer session, covered by that one entry.

`open_viewer` authorises nothing itself (the route's `@allow` did), records `file_view`
("in the viewer") and answers what kind of viewer to show with links signed for the caller's
session and this content version (BFF_PREVIEW_LINK_SECONDS), each with the purpose of the one
route it opens (bff/auth/policy.py `link_purpose`): pictures the server renders (a page
template with `{page}` and `{width}`, or an image's reduced copy) under VIEWER_LINK, an
original's bytes under VIEWER_CONTENT_LINK, signed only for a text or an image whose header
(read in the worker pool, and by hand here: bff/files/pixels.py) is within the thumbnail's
decompression budget. So no PDF and no image bomb reaches the browser from the viewer: a PDF's
pages and a large image's reduced copy (streamed by libvips when installed, up to a gigapixel)
are rendered in the worker pool (bff/files/previews.py: its time and memory limits) and kept
in a bounded in-memory cache per process (`PageCache`), so a picture seen again is served at
once (and a rendering refused, out of time or memory or its worker dead, is refused again at once
for that content version for REFUSAL_SECONDS, instead of holding a worker as long again); the
content route refuses PDFs whatever link it is given. An image over the budget is
answered with `original_download`: the view routes send its original only as a download
(bff/files/delivery.py), and the web app offers it so.

A Word .docx is shown as sanitised HTML and an RTF as its text, both rendered in the worker
pool (bff/files/documents.py: a DOCX bomb refused from its ZIP directory before anything is
unpacked) when the viewer opens them, so a refusal is the card's reason, and cached as pages
are; each under a link of its own purpose (VIEWER_HTML_LINK, VIEWER_TEXT_LINK). Their
originals are never served by the viewer's content route (a .docx is a download by the view
route: bff/files/delivery.py shows no Office type inline).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Literal, TypeVar
from urllib.parse import quote

from cachetools import LRUCache, TTLCache

from bff.audit.service import Actor, record_alone
from bff.auth.links import sign_link
from bff.containers.models import Folder
from bff.errors import ApiError
from bff.files import preview_repository
from bff.files.documents import docx_html, rtf_text
from bff.files.names import extension_of
from bff.files.pixels import HEAD_BYTES, read_head, within_budget
from bff.files.previews import (
    IMAGE_TOO_MUCH_MEMORY,
    IMAGE_TOO_SLOW,
    PAGE_OUTSIDE,
    PAGE_WIDTHS,
    REDUCED_SIZE,
    TOO_LARGE,
    PreviewRefused,
    Reducer,
    base_type,
    image_display,
    pdf_page,
    pdf_page_count,
    reduced_image,
    snap_width,
)
from bff.files.service import FILE_NOT_FOUND, current_content, get_file
from bff.files.thumbnails import MB, content_id, in_worker
from bff.jobs.service import work_dir, work_folder
from bff.workers import WorkerBusy, WorkerFailed, WorkerOutOfMemory, WorkerPool, WorkerTimeout
from config.settings import Settings
from storage.base import ObjectKey, Storage

T = TypeVar("T")

# The purposes signed into the viewer's links: pictures the server rendered (a PDF's pages, an
# image's reduced copy), and an original's bytes (an image within budget, a text). A link of
# one never opens the other's routes.
VIEWER_LINK = ".bff-viewer"
VIEWER_CONTENT_LINK = ".bff-viewer-content"
# A document the server rendered: a .docx as HTML, an RTF as text.
VIEWER_HTML_LINK = ".bff-viewer-html"
VIEWER_TEXT_LINK = ".bff-viewer-text"
IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp", "image/bmp"})
TEXT_TYPES = frozenset({"text/plain", "text/csv"})
TEXT_MAX_BYTES = 5 * MB  # larger text files open as "other" (Open original)
DOCX_TYPES = frozenset({"application/vnd.openxmlformats-officedocument.wordprocessingml.document"})
RTF_TYPES = frozenset({"application/rtf", "text/rtf", "application/x-rtf", "text/richtext"})
FILE_CHANGED = "This file has changed since it was opened. Please open it again."
NOT_A_PDF = "This file has no pages to show."
BUSY = "The server is busy showing other files. Please try again in a moment."
BUSY_RETRY_SECONDS = "5"
PAGE_TOO_SLOW = "This page took too long to show. Please open the original instead."
PAGE_FAILED = "This page could not be shown. Please open the original instead."
PAGE_TOO_MUCH_MEMORY = (
    "This page needs more memory to show than the server allows. Please open the original instead."
)
IMAGE_FAILED = "This image could not be shown. Please open the original instead."
DOCUMENT_TOO_SLOW = "This document took too long to show. Please download the original instead."
DOCUMENT_FAILED = "This document could not be shown. Please download the original instead."
DOCUMENT_TOO_MUCH_MEMORY = (
    "This document needs more memory to show than the server allows. "
    "Please download the original instead."
)
NOT_A_DOCUMENT = "This file is not a document the viewer renders."
NOT_AN_IMAGE = "This file is not an image."
# A damaged PDF kept by BFF_DAMAGED_PDF=keep (bff/files/content.py): never rendered.
CANNOT_DISPLAY = "This file is damaged and cannot be displayed. You can download the original."
NO_CONTENT = (
    "The viewer shows this file's pages, not the file itself. "
    "Use Open original to open or download it."
)

Kind = Literal["image", "pdf", "text", "html", "other"]
Document = Literal["docx", "rtf"]


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


def document_of(content_type: str, name: str) -> Document | None:
    """Whether the viewer shows this file as a document the server renders (a .docx as HTML,
    an RTF as text): by its name's extension, else its type."""
    extension = extension_of(name)
    if extension in ("docx", "rtf"):
        return "docx" if extension == "docx" else "rtf"
    base = base_type(content_type)
    return "docx" if base in DOCX_TYPES else "rtf" if base in RTF_TYPES else None


@dataclass(frozen=True)
class ViewerSession:
    """What open_viewer answers (bff/files/schemas.py ViewerOpen)."""

    kind: Kind
    version_id: str
    expires_at: datetime
    page_count: int | None = None
    page_url: str | None = None
    content_url: str | None = None
    html_url: str | None = None
    reason: str | None = None
    reduced: bool = False  # an image's content_url is its reduced copy, not the original
    original_download: bool = False  # an image whose original the view routes only download


PageKey = tuple[str, str, str, str, int, int]  # container, folder, name, version, page, width
# The cache's page and width of a document the server rendered (no page has these).
DOCUMENT_PAGE = 0
DOCUMENT_WIDTHS: dict[Document, int] = {"docx": -1, "rtf": -2}


# A rendering refused for its content (it ran out of time or memory, its worker died, the file
# must not be rendered) is remembered for its key (which holds the content version) this long,
# so that opening it again answers at once instead of holding a worker for as long again.
REFUSALS = 4096
REFUSAL_SECONDS = 600
REMEMBERED = (PreviewRefused, WorkerTimeout, WorkerFailed)  # not WorkerBusy: the pool was full


class PageCache:
    """Rendered pages of this process, least recently used dropped beyond max_bytes; one
    rendering at a time per page (requests for a page being rendered wait for it); a refused
    rendering's refusal kept for REFUSAL_SECONDS (at most REFUSALS of them), answered again
    without rendering."""

    def __init__(self, max_bytes: int) -> None:
        self._pages: LRUCache[PageKey, bytes] = LRUCache(max(max_bytes, 1), getsizeof=len)
        self._max_bytes = max_bytes
        self._rendering: dict[PageKey, asyncio.Future[bytes]] = {}
        self._refused: TTLCache[PageKey, tuple[type[Exception], tuple[Any, ...]]] = TTLCache(
            REFUSALS, REFUSAL_SECONDS
        )

    def get(self, key: PageKey) -> bytes | None:
        """A cached page, or None."""
        return self._pages.get(key)

    async def get_or_render(self, key: PageKey, render: Callable[[], Awaitable[bytes]]) -> bytes:
        """The cached page, or render() it (once, whoever else asks meanwhile); a refusal
        remembered for it raised again (a new exception of its kind)."""
        found = self._pages.get(key)
        if found is not None:
            return found
        if (refused := self._refused.get(key)) is not None:
            kind, args = refused
            raise kind(*args)
        if (pending := self._rendering.get(key)) is not None:
            return await asyncio.shield(pending)
        future: asyncio.Future[bytes] = asyncio.get_running_loop().create_future()
        self._rendering[key] = future
        try:
            page = await render()
        except BaseException as exc:
            if isinstance(exc, REMEMBERED):
                self._refused[key] = (type(exc), exc.args)
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
        async with work_folder(work_dir(settings)) as folder:
            content = folder / "content"
            await _copy(storage, where, content)
            if place is None:
                return await in_worker(None, settings.preview_seconds, func, str(content), *args)
            return await place.run(func, str(content), *args, seconds=settings.preview_seconds)


async def _at_opening(
    storage: Storage,
    settings: Settings,
    workers: WorkerPool | None,
    folder: Folder,
    name: str,
    failed: str,
    func: Callable[..., T],
    *args: Any,
) -> T:
    """func(a copy of the file, *args) in the worker pool as the viewer opens it (a PDF's page
    count, how an image may be shown): 503 when the pool is full; PreviewRefused(failed) when
    the work ran out of time or memory or its worker died (the viewer then offers the original)."""
    where = (folder.container.name, folder.name, name)
    try:
        return await _rendered(workers, settings, storage, where, func, *args)
    except WorkerBusy:
        raise ApiError(503, BUSY, {"Retry-After": BUSY_RETRY_SECONDS}) from None
    except (WorkerTimeout, WorkerFailed):
        raise PreviewRefused(failed) from None


def reducer(settings: Settings) -> Reducer:
    """How reduced copies are streamed (BFF_VIPSTHUMBNAIL), within a rendering's time."""
    return Reducer(settings.vipsthumbnail, settings.preview_seconds)


async def _within_budget(storage: Storage, where: tuple[str, str, str], size: int) -> bool:
    """Whether the file's header says an image the browser may decode (bff/files/pixels.py):
    what the view routes decide its original's disposition by."""
    if size <= 0:
        return False
    stream = await storage.open_object(
        ObjectKey.file(*where), offset=0, length=min(HEAD_BYTES, size)
    )
    return within_budget(await read_head(stream))


def _document_limit(document: Document, settings: Settings) -> int:
    """The largest file of this kind the viewer renders (BFF_PREVIEW_MAX_MB, BFF_RTF_MAX_MB)."""
    return settings.preview_max_mb * MB if document == "docx" else settings.rtf_max_bytes


async def _document(
    where: tuple[str, str, str],
    version_id: str,
    document: Document,
    *,
    settings: Settings,
    storage: Storage,
    workers: WorkerPool | None,
    cache: PageCache,
) -> bytes:
    """A document's rendering (bff/files/documents.py: a .docx's HTML page, an RTF's text)
    from the cache, or rendered in the worker pool (once, whoever else asks meanwhile):
    PreviewRefused with a reason a person can read when it must not or could not be rendered;
    503 when the pool is full."""
    key: PageKey = (*where, version_id, DOCUMENT_PAGE, DOCUMENT_WIDTHS[document])
    func = docx_html if document == "docx" else rtf_text

    def render() -> Awaitable[bytes]:
        return _rendered(workers, settings, storage, where, func)

    try:
        return await cache.get_or_render(key, render)
    except WorkerBusy:
        raise ApiError(503, BUSY, {"Retry-After": BUSY_RETRY_SECONDS}) from None
    except WorkerTimeout:
        raise PreviewRefused(DOCUMENT_TOO_SLOW) from None
    except WorkerOutOfMemory:
        raise PreviewRefused(DOCUMENT_TOO_MUCH_MEMORY) from None
    except WorkerFailed:
        raise PreviewRefused(DOCUMENT_FAILED) from None


async def open_viewer(
    folder: Folder,
    name: str,
    *,
    actor: Actor,
    session_id: str,
    settings: Settings,
    storage: Storage,
    workers: WorkerPool | None,
    cache: PageCache | None = None,
) -> ViewerSession:
    """Open a file in the viewer: one audited view (`file_view`, "in the viewer") and the
    links its pages or content load under, for this session and content version. A document
    (.docx, RTF) is rendered now (into cache), so that one that cannot be shown opens as a
    card with the reason."""
    row = await get_file(folder, name, actor)
    container = folder.container.name
    version_id = content_id(row.version_id)
    max_bytes = settings.preview_max_mb * MB
    kind: Kind = kind_of(row.content_type, row.size, max_bytes)
    reason = TOO_LARGE if kind == "other" and row.size > max_bytes else None
    document = document_of(row.content_type, name)
    if document is not None:
        kind, reason = ("html" if document == "docx" else "text"), None
        if row.size > _document_limit(document, settings):
            kind, reason = "other", TOO_LARGE
    if not row.displayable:  # the content checks found it damaged and kept it so
        kind, reason = "other", CANNOT_DISPLAY
    page_count = None
    reduced = original_download = False
    if base_type(row.content_type) in IMAGE_TYPES:
        where = (container, folder.name, name)
        original_download = not await _within_budget(storage, where, row.size)
    if document is not None and kind != "other":
        try:
            await _document(
                (container, folder.name, name),
                version_id,
                document,
                settings=settings,
                storage=storage,
                workers=workers,
                cache=cache if cache is not None else PageCache(0),
            )
        except PreviewRefused as exc:
            kind, reason = "other", str(exc)
    elif kind == "pdf":
        preview = await preview_repository.current_content(container, folder.name, name)
        if preview and preview["preview_version"] == version_id and preview["page_count"]:
            page_count = int(preview["page_count"])
        else:
            try:
                page_count = await _at_opening(
                    storage, settings, workers, folder, name, PAGE_FAILED, pdf_page_count
                )
            except PreviewRefused as exc:
                kind, reason = "other", str(exc)
    elif kind == "image":
        # The browser decodes what it is given, in the app's tab: an image beyond the budget
        # the server keeps for itself (a PNG bomb) is shown as a reduced copy, or not at all;
        # so is one whose header the view routes cannot read (their original is a download).
        try:
            display = await _at_opening(
                storage,
                settings,
                workers,
                folder,
                name,
                IMAGE_FAILED,
                image_display,
                reducer(settings),
            )
            reduced = original_download or not display
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
    purpose = VIEWER_LINK if kind == "pdf" or reduced else VIEWER_CONTENT_LINK
    if document is not None:
        purpose = VIEWER_HTML_LINK if document == "docx" else VIEWER_TEXT_LINK
    link, expires = sign_link(
        settings,
        session_id,
        (purpose, container, folder.name, name, version_id),
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
    if kind == "html":
        return ViewerSession("html", version_id, expires, html_url=f"{base}/html?link={link}")
    if kind == "text" and document == "rtf":
        return ViewerSession("text", version_id, expires, content_url=f"{base}/text?link={link}")
    if reduced:
        url = f"{base}/image?link={link}"
        return ViewerSession(
            "image", version_id, expires, content_url=url, reduced=True, original_download=True
        )
    if kind in ("image", "text"):
        return ViewerSession(kind, version_id, expires, content_url=f"{base}/content?link={link}")
    return ViewerSession(
        "other", version_id, expires, reason=reason, original_download=original_download
    )


async def current_or_404(
    container: str, folder: str, name: str, version_id: str, actor: Actor
) -> dict[str, Any]:
    """The file's current content if it is still the version the viewer opened and actor may
    see it, else 404."""
    found = await current_content(container, folder, name, actor)
    if found is None:
        raise ApiError(404, FILE_NOT_FOUND)
    if content_id(str(found["version_id"])) != version_id:
        raise ApiError(404, FILE_CHANGED)
    return found


async def content_or_404(
    container: str, folder: str, name: str, version_id: str, actor: Actor, settings: Settings
) -> None:
    """404 unless the file's current content is the version the viewer opened and the viewer
    shows it as it is (an image or a text): never a PDF (the viewer shows its pages; its
    original opens through the view route, under that route's headers), whatever link asks.
    An image beyond the budget has no content link to ask with (`open_viewer`)."""
    found = await current_or_404(container, folder, name, version_id, actor)
    size = int(found["size"])
    content_type = str(found["content_type"])
    shown = kind_of(content_type, size, settings.preview_max_mb * MB)
    # A document's (an RTF's text, a .docx's page) is its rendering, never its bytes.
    if shown not in ("image", "text") or document_of(content_type, name) is not None:
        raise ApiError(404, NO_CONTENT)


def render_errors(exc: Exception, too_slow: str, too_much: str, failed: str) -> ApiError:
    """The answer to a picture the worker pool did not render (a page, a reduced image, an
    intake item's thumbnail)."""
    if isinstance(exc, PreviewRefused):
        return ApiError(404 if str(exc) == PAGE_OUTSIDE else 422, str(exc))
    if isinstance(exc, WorkerBusy):
        return ApiError(503, BUSY, {"Retry-After": BUSY_RETRY_SECONDS})
    if isinstance(exc, WorkerTimeout):
        return ApiError(422, too_slow)
    if isinstance(exc, WorkerOutOfMemory):
        return ApiError(422, too_much)
    return ApiError(422, failed)


async def page_image(
    container: str,
    folder: str,
    name: str,
    version_id: str,
    page: int,
    width: int,
    *,
    actor: Actor,
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
    found = await current_or_404(container, folder, name, version_id, actor)
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
    except (PreviewRefused, WorkerBusy, WorkerFailed, WorkerTimeout) as exc:
        raise render_errors(exc, PAGE_TOO_SLOW, PAGE_TOO_MUCH_MEMORY, PAGE_FAILED) from None


async def reduced_picture(
    container: str,
    folder: str,
    name: str,
    version_id: str,
    *,
    actor: Actor,
    settings: Settings,
    storage: Storage,
    workers: WorkerPool | None,
    cache: PageCache,
) -> bytes:
    """The reduced copy (WebP, REDUCED_SIZE px on its long side) of an image's current content
    (the version the viewer opened), rendered in the worker pool (streamed by libvips when
    installed); from the cache when it was rendered before."""
    key: PageKey = (container, folder, name, version_id, 0, REDUCED_SIZE)
    cached = cache.get(key)
    found = await current_or_404(container, folder, name, version_id, actor)
    if base_type(str(found["content_type"])) not in IMAGE_TYPES:
        raise ApiError(404, NOT_AN_IMAGE)
    if cached is not None:
        return cached
    if int(found["size"]) > settings.preview_max_mb * MB:
        raise ApiError(422, TOO_LARGE)

    def render() -> Awaitable[bytes]:
        where = (container, folder, name)
        return _rendered(workers, settings, storage, where, reduced_image, reducer(settings))

    try:
        return await cache.get_or_render(key, render)
    except (PreviewRefused, WorkerBusy, WorkerFailed, WorkerTimeout) as exc:
        raise render_errors(exc, IMAGE_TOO_SLOW, IMAGE_TOO_MUCH_MEMORY, IMAGE_FAILED) from None


async def rendered_document(
    container: str,
    folder: str,
    name: str,
    version_id: str,
    document: Document,
    *,
    actor: Actor,
    settings: Settings,
    storage: Storage,
    workers: WorkerPool | None,
    cache: PageCache,
) -> bytes:
    """A document's rendering (a .docx's sanitised HTML page, an RTF's text) of its current
    content (the version the viewer opened); from the cache when it was rendered before."""
    key: PageKey = (container, folder, name, version_id, DOCUMENT_PAGE, DOCUMENT_WIDTHS[document])
    cached = cache.get(key)
    found = await current_or_404(container, folder, name, version_id, actor)
    if document_of(str(found["content_type"]), name) != document:
        raise ApiError(404, NOT_A_DOCUMENT)
    if cached is not None:
        return cached
    if int(found["size"]) > _document_limit(document, settings):
        raise ApiError(422, TOO_LARGE)
    try:
        return await _document(
            (container, folder, name),
            version_id,
            document,
            settings=settings,
            storage=storage,
            workers=workers,
            cache=cache,
        )
    except PreviewRefused as exc:
        raise ApiError(422, str(exc)) from None


__all__ = [
    "PAGE_WIDTHS",
    "PageCache",
    "ViewerSession",
    "content_or_404",
    "open_viewer",
    "page_image",
    "reduced_picture",
    "rendered_document",
]
