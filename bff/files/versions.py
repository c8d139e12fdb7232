"""File versions: nothing a doctor or nurse does destroys content; an earlier content is kept
as a version (listed, viewed, made current again). The trash is bff/files/trash.py, the
retention that purges both bff/files/retention.py.

Layout inside a folder, the same on local disk and S3 (so it never depends on S3 bucket
versioning, which may be off, suspended or unsupported by an S3-compatible server):

- `.bff-versions/{file}/{versionId}`: an earlier content of a live file, and
  `.bff-versions/{file}/{versionId}.rtf-original` the RTF original kept with a converted text;
- `.bff-trash/{trashId}/{file}`: a deleted file's last content (with `.rtf-original.{rtf}`), and
  `.bff-trash/{trashId}/.bff-versions/{versionId}[.rtf-original]` its earlier versions.

Every name starting with '.bff-' is reserved (storage/base.py), so no user name can reach these
and listings never show them. Ids start with the UTC time they were made
(`20261123T201646123456Z-1a2b3c4d`), so `storage reindex` can rebuild rows from storage alone.

Nothing is ever lost on the way: content is *copied* to its new place (a hard link on local disk,
a server-side copy on S3) inside the transaction that records it, and the old place is removed
only after that transaction commits, recorded in it (bff/files/removals.py: neither `reindex` nor
a crash in between brings the old place back; the sweep removes it), never a gap. A replaced
file's old bytes are copied to their version before the new bytes are moved over the name
(bff/files/upload.py), so an overwrite that dies half-way keeps both.
"""

from __future__ import annotations

import contextlib
import logging
from datetime import UTC, datetime

from tortoise.backends.base.client import BaseDBAsyncClient

from bff.audit.service import Actor, record
from bff.containers.models import Folder
from bff.db import transaction
from bff.errors import ApiError
from bff.files import removals, repository
from bff.files.models import FileVersion, StoredFile
from bff.files.names import folder_key, new_id, original_rtf_key, preview_key, version_key
from bff.files.schemas import Uploader, VersionList, VersionOut
from bff.files.service import (
    FILE_NOT_FOUND,
    VERSION_NOT_FOUND,
    announce,
    audit,
    get_file,
    may_see,
)
from bff.files.sources import source_out
from bff.jobs import service as jobs
from bff.live.events import PROFILE_CHANGED, VERSION_RESTORED
from storage.base import NotFound, ObjectKey, Storage

log = logging.getLogger(__name__)


LEGACY_VERSION_ID = "initial"  # the current content of a file indexed before versions existed

ALREADY_CURRENT = "This version is already the current one."


def uploader(name: str, role: str) -> Uploader:
    return Uploader(name=name or "unknown", role=role)


async def keep_current(
    conn: BaseDBAsyncClient,
    storage: Storage,
    folder: Folder,
    row: StoredFile,
    actor: Actor,
    now: datetime,
) -> FileVersion | None:
    """Inside transaction conn (the folder locked): copy a file's current content (and its
    kept RTF original) to a new version and record it, before anything replaces it. None if
    storage no longer holds the content (nothing to keep)."""
    container = folder.container.name
    where = folder_key(folder)
    version_id = row.version_id or new_id(row.last_modified)
    try:
        await storage.copy_object(where.child(row.name), version_key(where, row.name, version_id))
    except NotFound:
        log.warning("A replaced file had no content in storage; no version kept.")
        return None
    if row.original_rtf_name:
        with contextlib.suppress(NotFound):
            await storage.copy_object(
                where.child(original_rtf_key(row.original_rtf_name)),
                version_key(where, row.name, version_id, original=True),
            )
    version = await repository.add_version(
        conn,
        {
            "folder_id": folder.id,
            "name": row.name,
            "version_id": version_id,
            "content_type": row.content_type,
            "size": row.size,
            "last_modified": row.last_modified,
            "uploaded_by_name": row.uploaded_by_name,
            "uploaded_by_role": row.uploaded_by_role,
            "original_rtf_name": row.original_rtf_name,
            "active_content": row.active_content,  # what the content checks found, kept with it
            "displayable": row.displayable,
            "source": row.source,  # where this content came from (the intake's), kept with it
            "scan_state": row.scan_state,  # a held content stays the admins' only
            "scanned_at": row.scanned_at,
            "replaced_at": now,
        },
    )
    await record(
        conn,
        actor,
        "version_create",
        container=container,
        folder=folder.name,
        blob=row.name,
        details=f"version {version_id}",
    )
    return version


def current_id(row: StoredFile) -> str:
    """The version id the API gives a file's current content."""
    return row.version_id or LEGACY_VERSION_ID


def thumbnail_of(folder: Folder, row: StoredFile) -> ObjectKey:
    """Where the thumbnail of a file's current content is (bff/files/thumbnails.py): only a
    current content has one, so a change that replaces the content or moves the file to the
    trash records it for removal with the change."""
    return preview_key(folder_key(folder), row.name, current_id(row))


async def list_versions(folder: Folder, name: str, actor: Actor) -> VersionList:
    """A file's versions, newest first, the current one included (audited)."""
    row = await get_file(folder, name, actor)
    current = VersionOut(
        versionId=current_id(row),
        contentLength=row.size,
        contentType=row.content_type,
        lastModified=row.last_modified,
        uploadedBy=uploader(row.uploaded_by_name, row.uploaded_by_role),
        current=True,
        activeContent=row.active_content,
        displayable=row.displayable,
        source=source_out(row.source),
    )
    earlier = [
        VersionOut(
            versionId=v.version_id,
            contentLength=v.size,
            contentType=v.content_type,
            lastModified=v.last_modified,
            uploadedBy=uploader(v.uploaded_by_name, v.uploaded_by_role),
            current=False,
            activeContent=v.active_content,
            displayable=v.displayable,
            source=source_out(v.source),
        )
        for v in await repository.versions_where(
            None, folder_id=folder.id, name=name, trash_id=None
        )
        if may_see(v.scan_state, actor)  # a held content stays the admins' only
    ]
    await audit(actor, "version_list", folder.container.name, folder.name, name)
    return VersionList(versions=[current, *earlier])


async def restore_version(
    folder: Folder, name: str, version_id: str, actor: Actor, storage: Storage
) -> str:
    """Make an earlier version current; the content it replaces becomes a version in turn."""
    container = folder.container.name
    where = folder_key(folder)
    now = datetime.now(UTC)
    async with transaction() as conn:
        await repository.lock_folder(conn, folder.id)
        row = await repository.locked_file(conn, folder.id, name)
        if row is None or not may_see(row.scan_state, actor):  # held: as if it were not there
            raise ApiError(404, FILE_NOT_FOUND)
        if version_id == current_id(row):
            raise ApiError(409, ALREADY_CURRENT)
        found = await repository.versions_where(
            conn, folder_id=folder.id, name=name, version_id=version_id, trash_id=None
        )
        if not found or not may_see(found[0].scan_state, actor):
            raise ApiError(404, VERSION_NOT_FOUND)
        version = found[0]
        stale_original = row.original_rtf_name
        stale_thumbnail = thumbnail_of(folder, row)  # before the row takes the restored id
        await keep_current(conn, storage, folder, row, actor, now)
        await storage.copy_object(version_key(where, name, version_id), where.child(name))
        if version.original_rtf_name:
            await storage.copy_object(
                version_key(where, name, version_id, original=True),
                where.child(original_rtf_key(version.original_rtf_name)),
            )
        info = await storage.stat(container, folder.name, name)
        await repository.update_file(
            conn,
            row,
            {
                "content_type": version.content_type,
                "size": info.size,
                "last_modified": info.last_modified,
                "converted_from_rtf": version.original_rtf_name is not None,
                "original_rtf_name": version.original_rtf_name,
                "version_id": version.version_id,
                "uploaded_by_name": version.uploaded_by_name,
                "uploaded_by_role": version.uploaded_by_role,
                "active_content": version.active_content,
                "displayable": version.displayable,
                "source": version.source,
                "scan_state": version.scan_state,
                "scanned_at": version.scanned_at,
            },
        )
        await repository.delete_versions(conn, id=version.id)
        await jobs.file_changed(conn, row)
        leftovers = [
            version_key(where, name, version_id),
            version_key(where, name, version_id, original=True),
            stale_thumbnail,
        ]
        if stale_original and stale_original != version.original_rtf_name:
            leftovers.append(where.child(original_rtf_key(stale_original)))
        leftover_ids = await removals.defer(conn, folder.id, leftovers)
        await record(
            conn,
            actor,
            "version_restore",
            container=container,
            folder=folder.name,
            blob=name,
            details=f"version {version_id}",
        )
        announce(
            PROFILE_CHANGED if row.is_profile_image else VERSION_RESTORED,
            folder,
            name,
            scan_state=version.scan_state,
        )
    # Committed: the restored version's old place is no longer needed.
    await removals.carry_out(storage, folder, leftover_ids)
    return "Version restored successfully"
