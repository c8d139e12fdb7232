"""Patient files: listing, opening for viewing, deletion, and what every file change shares
(the API shape, the live event, dropping a converted RTF's kept original).

Storage holds the bytes; the `files` table indexes them so listings and statistics never walk
storage. An upload's bytes are staged and moved to their name in the transaction that indexes
them (bff/files/upload.py, bff/files/staging.py), so a file is visible exactly when its index
row is; `reindex` (bff/files/reindex.py) takes in files written by other tools and drops rows
whose bytes vanished.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, NoReturn

from werkzeug.http import parse_range_header

from bff.assignments.repository import folder_member_ids
from bff.audit.service import Actor, record_alone
from bff.containers.models import Folder
from bff.containers.service import get_folder
from bff.errors import ApiError
from bff.files import preview_repository, repository
from bff.files.models import StoredFile
from bff.files.names import PROFILE_IMAGE_NAME, version_key
from bff.files.schemas import Blob, BlobList
from bff.files.sources import source_out
from bff.jobs import repository as jobs_repository
from bff.jobs import service as jobs
from bff.jobs.models import KIND_TEXT, KIND_THUMBNAIL
from bff.jobs.repository import JobStates
from bff.live.events import ADMINS, publish, user_room
from bff.scan.service import HELD
from bff.users.models import Role
from storage.base import ObjectKey, ReadStream, Storage

FILE_NOT_FOUND = "File not found"
PROFILE_NOT_FOUND = "This folder has no profile image."
VERSION_NOT_FOUND = "Version not found"
RANGE_OUTSIDE = "The requested range is outside the file."
VIEW_CHUNK = 1024 * 1024  # fewer, larger reads: each chunk costs a thread hop and a send


def blob_out(
    row: StoredFile,
    earlier_versions: int = 0,
    states: JobStates | None = None,
    preview: str | None = None,
) -> Blob:
    """The API shape of an indexed file (earlier_versions: how many it has besides this;
    states: its jobs' states and reasons by kind, bff/jobs/; preview: its thumbnail's link)."""
    states = states or {}
    text_state, text_problem = jobs.shown(states.get(KIND_TEXT))
    return Blob(
        name=row.name,
        contentType=row.content_type,
        contentLength=row.size,
        lastModified=row.last_modified,
        isProfileImage=row.is_profile_image,
        isConvertedFromRtf=row.converted_from_rtf,
        originalRtfFileName=row.original_rtf_name,
        versionCount=1 + earlier_versions,
        preview=preview,
        previewState=jobs.shown(states.get(KIND_THUMBNAIL))[0],
        textState=text_state,
        textProblem=text_problem,
        activeContent=row.active_content,
        displayable=row.displayable,
        scanState=row.scan_state if row.scan_state in ("clean", "held") else "unscanned",
        source=source_out(row.source),
    )


def announce(event: str, folder: Folder, name: str, *, scan_state: str, **extra: str) -> None:
    """Tell admins and the folder's assigned users, worked out when the event is sent; of a
    file in scan_state held (`may_see`), admins only: its name is not revealed to the others."""
    announce_in(
        event, folder.id, folder.container.name, folder.name, name, scan_state=scan_state, **extra
    )


def announce_in(
    event: str,
    folder_id: int,
    container: str,
    folder: str,
    name: str,
    *,
    scan_state: str,
    **extra: str,
) -> None:
    """`announce` by the folder's id and names (extra: more of the payload)."""
    payload = {"container": container, "folder": folder}
    if name != PROFILE_IMAGE_NAME:
        payload["name"] = name
    payload.update(extra)
    if scan_state == HELD:  # the admins' only, as the file itself
        publish(event, payload, [ADMINS])
        return

    async def rooms() -> list[str]:
        return [ADMINS, *(user_room(user_id) for user_id in await folder_member_ids(folder_id))]

    publish(event, payload, rooms)


def may_see(scan_state: str, actor: Actor | None) -> bool:
    """Whether actor may see a file in scan_state: a held file (stored while the malware
    scanner was unavailable, not scanned yet: bff/scan/) is for admins only, as if it were not
    there. actor None: the caller has no one to check."""
    return actor is None or scan_state != HELD or actor.role == Role.ADMIN


async def current_content(
    container: str, folder: str, name: str, actor: Actor
) -> dict[str, Any] | None:
    """A file's current content by names (preview_repository.current_content) if actor may see
    it (`may_see`), else None: a link given before the content became held answers as for a
    file that is not there, never "changed"."""
    found = await preview_repository.current_content(container, folder, name)
    if found is None or not may_see(str(found["scan_state"]), actor):
        return None
    return found


async def get_file(folder: Folder, name: str, actor: Actor | None = None) -> StoredFile:
    """An indexed file of folder that actor may see (`may_see`), or 404."""
    row = await repository.file_named(folder.id, name)
    if row is None or not may_see(row.scan_state, actor):
        raise ApiError(404, PROFILE_NOT_FOUND if name == PROFILE_IMAGE_NAME else FILE_NOT_FOUND)
    return row


async def audit(actor: Actor, operation: str, container: str, folder: str, blob: str = "") -> None:
    """Record an access to a folder's files."""
    await record_alone(actor, operation, container=container, folder=folder, blob=blob)


async def has_profile_image(folder_id: int, actor: Actor) -> bool:
    """Whether a folder has a profile image actor may see (`may_see`: a held one is not there
    for others; nothing about it is read, so nothing audited)."""
    row = await repository.file_named(folder_id, PROFILE_IMAGE_NAME)
    return row is not None and may_see(row.scan_state, actor)


# The thumbnail links of a listing's files (bff/files/thumbnails.py `listing_links`).
PreviewLinks = Callable[[list[StoredFile]], Awaitable[dict[str, str]]]


async def folder_listing(
    folder_id: int,
    container: str,
    folder: str,
    actor: Actor,
    previews: PreviewLinks | None = None,
) -> BlobList:
    """A folder's files sorted by name (audited: file names are patient data; the entry also
    covers the thumbnails the listing links to)."""
    rows = [r for r in await repository.files_of(folder_id) if may_see(r.scan_state, actor)]
    earlier = await repository.earlier_version_counts(folder_id, held=may_see(HELD, actor))
    states = await jobs_repository.states_in_folder(folder_id)
    links = await previews(rows) if previews is not None else {}
    await audit(actor, "file_list", container, folder)
    return BlobList(
        blobs=[
            blob_out(r, earlier.get(r.name, 0), states.get(r.id), links.get(r.name)) for r in rows
        ],
        hasProfileImage=any(r.is_profile_image for r in rows),
    )


async def list_files(
    folder: Folder, actor: Actor, previews: PreviewLinks | None = None
) -> BlobList:
    """A folder's files as staff see them, with their thumbnails' links (previews)."""
    return await folder_listing(folder.id, folder.container.name, folder.name, actor, previews)


@dataclass(frozen=True)
class ViewSource:
    """A stored object the caller may now see (authorised and audited), ready to send.

    `start`/`stop` is the byte range asked for (the whole object unless `partial`); nginx and
    S3 answer the request's Range header themselves. `open(offset, length)` streams the bytes
    when the BFF sends them.
    """

    key: ObjectKey
    name: str  # the name the browser shows and saves under
    content_type: str
    last_modified: datetime
    size: int
    start: int
    stop: int
    partial: bool
    open: Callable[[int, int], Awaitable[ReadStream]]


async def _missing(
    container: str, folder: str, name: str, version_id: str | None, actor: Actor
) -> NoReturn:
    """The 404 of a view whose object is not indexed or not actor's to see, naming what is
    missing (the container, the folder, the file or the version) as actor sees them: a held
    file or version answers exactly as a missing one."""
    await get_file(await get_folder(container, folder), name, actor)
    raise ApiError(404, FILE_NOT_FOUND if version_id is None else VERSION_NOT_FOUND)


async def open_view(
    container: str,
    folder: str,
    name: str,
    range_header: str | None,
    *,
    operation: str | None,
    actor: Actor,
    storage: Storage,
    version_id: str | None = None,
    sized_by_index: bool = False,
) -> ViewSource:
    """Check a file, or an earlier version of it (version_id), and the one byte range asked
    for, and audit the access (operation; None: an audit entry made before covers it, the
    viewer's, bff/files/viewer.py); 404 for a file or version not indexed, 416 for a range
    outside it. The caller sends the bytes (files/delivery.py).

    One query finds the object by its names. sized_by_index: take the size from the index
    instead of asking storage (when nginx or S3 send the bytes, and answer Range against the
    stored object themselves); the BFF streaming needs the stored size.
    """
    found = await repository.viewed(container, folder, name, version_id)
    if found is None or not may_see(found[3], actor):  # held: as if it were not there
        await _missing(container, folder, name, version_id, actor)
    content_type, last_modified, size, _ = found
    key, details = ObjectKey.file(container, folder, name), ""
    if version_id is not None:
        where = ObjectKey.folder(container, folder)
        key, details = version_key(where, name, version_id), f"version {version_id}"
    if not sized_by_index:
        size = (await storage.stat_object(key)).size
    start, stop, partial = 0, size, False
    ranges = parse_range_header(range_header)
    if ranges is not None and ranges.units == "bytes" and len(ranges.ranges) == 1:
        bounds = ranges.range_for_length(size)
        if bounds is None:
            raise ApiError(416, RANGE_OUTSIDE, {"Content-Range": f"bytes */{size}"})
        start, stop, partial = bounds[0], bounds[1], True
    if operation is not None:
        await record_alone(
            actor, operation, container=container, folder=folder, blob=name, details=details
        )

    def open_range(offset: int, length: int) -> Awaitable[ReadStream]:
        return storage.open_object(key, offset=offset, length=length, chunk_size=VIEW_CHUNK)

    return ViewSource(
        key=key,
        name=name,
        content_type=content_type,
        last_modified=last_modified,
        size=size,
        start=start,
        stop=stop,
        partial=partial,
        open=open_range,
    )
