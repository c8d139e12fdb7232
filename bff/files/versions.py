"""File versions and the trash: nothing a doctor or nurse does destroys content, and an admin's
delete can be undone until the retention purges it.

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
only after that transaction commits. A crash in between leaves a duplicate that `reindex` adopts,
never a gap. A replaced file's old bytes are copied to their version before the new bytes are
moved over the name (bff/files/upload.py), so an overwrite that dies half-way keeps both.
"""

from __future__ import annotations

import contextlib
import logging
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from tortoise.backends.base.client import BaseDBAsyncClient

from bff.audit.service import Actor, record
from bff.containers.models import Folder
from bff.db import transaction
from bff.errors import ApiError
from bff.files import repository
from bff.files.models import FileVersion, StoredFile, TrashedFile
from bff.files.names import (
    PROFILE_IMAGE_NAME,
    ObjectPath,
    extension_of,
    new_id,
    original_rtf_key,
    trash_path,
    trashed_version_path,
    version_path,
)
from bff.files.schemas import TrashedBlob, TrashList, Uploader, VersionList, VersionOut
from bff.files.service import (
    FILE_NOT_FOUND,
    PROFILE_NOT_FOUND,
    VERSION_NOT_FOUND,
    announce,
    audit,
    get_file,
)
from bff.leases import leased
from bff.live.events import FILE_DELETED, FILE_RESTORED, PROFILE_CHANGED, VERSION_RESTORED
from bff.users.bootstrap import SYSTEM
from config.settings import Settings
from storage.base import NotFound, Storage

log = logging.getLogger(__name__)

LEGACY_VERSION_ID = "initial"  # the current content of a file indexed before versions existed
RETENTION_LEASE = "retention-purge"
_PURGE_BATCH = 200

ALREADY_CURRENT = "This version is already the current one."
TRASH_NOT_FOUND = "This file is not in the trash."
CONFIRM_PURGE = "Type DELETE to confirm deleting this file for good."
TRASH_INCOMPLETE = "This file's content is missing from the trash; it cannot be restored."


def _uploader(name: str, role: str) -> Uploader:
    return Uploader(name=name or "unknown", role=role)


# Versions of live files.


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
    version_id = row.version_id or new_id(row.last_modified)
    try:
        await storage.copy_path(
            container, folder.name, (row.name,), version_path(row.name, version_id)
        )
    except NotFound:
        log.warning("A replaced file had no content in storage; no version kept.")
        return None
    if row.original_rtf_name:
        with contextlib.suppress(NotFound):
            await storage.copy_path(
                container,
                folder.name,
                (original_rtf_key(row.original_rtf_name),),
                version_path(row.name, version_id, original=True),
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


async def list_versions(folder: Folder, name: str, actor: Actor) -> VersionList:
    """A file's versions, newest first, the current one included (audited)."""
    row = await get_file(folder, name)
    current = VersionOut(
        versionId=current_id(row),
        contentLength=row.size,
        contentType=row.content_type,
        lastModified=row.last_modified,
        uploadedBy=_uploader(row.uploaded_by_name, row.uploaded_by_role),
        current=True,
    )
    earlier = [
        VersionOut(
            versionId=v.version_id,
            contentLength=v.size,
            contentType=v.content_type,
            lastModified=v.last_modified,
            uploadedBy=_uploader(v.uploaded_by_name, v.uploaded_by_role),
            current=False,
        )
        for v in await repository.versions_where(
            None, folder_id=folder.id, name=name, trash_id=None
        )
    ]
    await audit(actor, "version_list", folder.container.name, folder.name, name)
    return VersionList(versions=[current, *earlier])


async def restore_version(
    folder: Folder, name: str, version_id: str, actor: Actor, storage: Storage
) -> str:
    """Make an earlier version current; the content it replaces becomes a version in turn."""
    container = folder.container.name
    now = datetime.now(UTC)
    async with transaction() as conn:
        await repository.lock_folder(conn, folder.id)
        row = await repository.locked_file(conn, folder.id, name)
        if row is None:
            raise ApiError(404, FILE_NOT_FOUND)
        if version_id == current_id(row):
            raise ApiError(409, ALREADY_CURRENT)
        found = await repository.versions_where(
            conn, folder_id=folder.id, name=name, version_id=version_id, trash_id=None
        )
        if not found:
            raise ApiError(404, VERSION_NOT_FOUND)
        version = found[0]
        stale_original = row.original_rtf_name
        await keep_current(conn, storage, folder, row, actor, now)
        await storage.copy_path(container, folder.name, version_path(name, version_id), (name,))
        if version.original_rtf_name:
            await storage.copy_path(
                container,
                folder.name,
                version_path(name, version_id, original=True),
                (original_rtf_key(version.original_rtf_name),),
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
            },
        )
        await repository.delete_versions(conn, id=version.id)
        await record(
            conn,
            actor,
            "version_restore",
            container=container,
            folder=folder.name,
            blob=name,
            details=f"version {version_id}",
        )
        announce(PROFILE_CHANGED if row.is_profile_image else VERSION_RESTORED, folder, name)
    # Committed: the restored version's old place is no longer needed.
    await storage.delete_path(container, folder.name, version_path(name, version_id))
    await storage.delete_path(container, folder.name, version_path(name, version_id, original=True))
    if stale_original and stale_original != version.original_rtf_name:
        await storage.delete_path(container, folder.name, (original_rtf_key(stale_original),))
    return "Version restored successfully"


# The trash.


async def trash_file(folder: Folder, name: str, actor: Actor, storage: Storage) -> str:
    """Move a file with all its versions to the folder's trash (an admin's delete)."""
    container = folder.container.name
    now = datetime.now(UTC)
    trash_id = new_id(now)
    async with transaction() as conn:
        await repository.lock_folder(conn, folder.id)
        row = await repository.locked_file(conn, folder.id, name)
        if row is None:
            raise ApiError(404, PROFILE_NOT_FOUND if name == PROFILE_IMAGE_NAME else FILE_NOT_FOUND)
        moves: list[tuple[ObjectPath, ObjectPath]] = [((name,), trash_path(trash_id, name))]
        if row.original_rtf_name:
            key = original_rtf_key(row.original_rtf_name)
            moves.append(((key,), trash_path(trash_id, key)))
        versions = await repository.versions_where(
            conn, folder_id=folder.id, name=name, trash_id=None
        )
        for v in versions:
            moves.append(
                (version_path(name, v.version_id), trashed_version_path(trash_id, v.version_id))
            )
            if v.original_rtf_name:
                moves.append(
                    (
                        version_path(name, v.version_id, original=True),
                        trashed_version_path(trash_id, v.version_id, original=True),
                    )
                )
        moved = [m for m in moves if await _copy(storage, container, folder.name, *m)]
        await repository.update_versions(conn, [v.id for v in versions], {"trash_id": trash_id})
        await repository.add_trashed(
            conn,
            {
                "folder_id": folder.id,
                "name": name,
                "trash_id": trash_id,
                "content_type": row.content_type,
                "size": row.size,
                "last_modified": row.last_modified,
                "is_profile_image": row.is_profile_image,
                "original_rtf_name": row.original_rtf_name,
                "version_id": row.version_id,
                "uploaded_by_name": row.uploaded_by_name,
                "uploaded_by_role": row.uploaded_by_role,
                "deleted_at": now,
                "deleted_by_name": actor.name,
                "deleted_by_role": actor.role,
            },
        )
        await repository.delete_file(conn, row.id)
        announce(PROFILE_CHANGED if row.is_profile_image else FILE_DELETED, folder, name)
        await record(
            conn,
            actor,
            "profile_delete" if row.is_profile_image else "file_delete",
            container=container,
            folder=folder.name,
            blob=name,
            details=f"moved to the trash ({trash_id})",
        )
    for source, _ in moved:
        await storage.delete_path(container, folder.name, source)
    return (
        "Profile image deleted successfully"
        if row.is_profile_image
        else "File deleted successfully"
    )


async def _copy(
    storage: Storage, container: str, folder: str, source: ObjectPath, target: ObjectPath
) -> bool:
    """Copy an object; False if the source is missing (a version whose bytes vanished)."""
    try:
        await storage.copy_path(container, folder, source, target)
    except NotFound:
        return False
    return True


def purge_after(deleted_at: datetime, settings: Settings) -> datetime:
    """When the retention purges a trash entry."""
    return deleted_at + timedelta(days=settings.trash_days)


async def list_trash(folder: Folder, actor: Actor, settings: Settings) -> TrashList:
    """A folder's trash, most recently deleted first (audited)."""
    entries = await repository.trashed_where(None, folder_id=folder.id)
    counts = await repository.trashed_version_counts(folder.id)
    await audit(actor, "trash_list", folder.container.name, folder.name)
    return TrashList(
        blobs=[
            TrashedBlob(
                name=e.name,
                versionCount=1 + counts.get(e.trash_id, 0),
                contentLength=e.size,
                contentType=e.content_type,
                isProfileImage=e.is_profile_image,
                deletedAt=e.deleted_at,
                deletedBy=_uploader(e.deleted_by_name, e.deleted_by_role),
                purgeAfter=purge_after(e.deleted_at, settings),
            )
            for e in entries
        ],
        trashDays=settings.trash_days,
    )


async def _newest_trashed(conn: BaseDBAsyncClient, folder: Folder, name: str) -> TrashedFile:
    entries = await repository.trashed_where(conn, folder_id=folder.id, name=name)
    if not entries:
        raise ApiError(404, TRASH_NOT_FOUND)
    return entries[0]


def _exists_now(name: str) -> ApiError:
    return ApiError(
        409,
        f"A file named '{name}' exists in this folder now. "
        "Delete or rename it before restoring this one.",
    )


async def restore_trashed(folder: Folder, name: str, actor: Actor, storage: Storage) -> str:
    """Bring the most recently deleted file of that name back, with its versions."""
    container = folder.container.name
    async with transaction() as conn:
        await repository.lock_folder(conn, folder.id)
        entry = await _newest_trashed(conn, folder, name)
        if await repository.locked_file(conn, folder.id, name) is not None:
            raise _exists_now(name)
        tid = entry.trash_id
        if not await _copy(storage, container, folder.name, trash_path(tid, name), (name,)):
            raise ApiError(409, TRASH_INCOMPLETE)
        if entry.original_rtf_name:
            key = original_rtf_key(entry.original_rtf_name)
            await _copy(storage, container, folder.name, trash_path(tid, key), (key,))
        versions = await repository.versions_where(conn, folder_id=folder.id, trash_id=tid)
        for v in versions:
            await _copy(
                storage,
                container,
                folder.name,
                trashed_version_path(tid, v.version_id),
                version_path(name, v.version_id),
            )
            if v.original_rtf_name:
                await _copy(
                    storage,
                    container,
                    folder.name,
                    trashed_version_path(tid, v.version_id, original=True),
                    version_path(name, v.version_id, original=True),
                )
        await repository.update_versions(conn, [v.id for v in versions], {"trash_id": None})
        info = await storage.stat(container, folder.name, name)
        await repository.create_file(
            conn,
            folder,
            name,
            {
                "content_type": entry.content_type,
                "size": info.size,
                "last_modified": entry.last_modified,
                "extension": extension_of(name),
                "is_profile_image": entry.is_profile_image,
                "converted_from_rtf": entry.original_rtf_name is not None,
                "original_rtf_name": entry.original_rtf_name,
                "version_id": entry.version_id,
                "uploaded_by_name": entry.uploaded_by_name,
                "uploaded_by_role": entry.uploaded_by_role,
            },
        )
        await repository.delete_trashed(conn, entry.id)
        await record(
            conn,
            actor,
            "trash_restore",
            container=container,
            folder=folder.name,
            blob=name,
            details=f"from the trash ({tid})",
        )
        announce(PROFILE_CHANGED if entry.is_profile_image else FILE_RESTORED, folder, name)
    await storage.delete_tree(container, folder.name, trash_path(tid))
    return "File restored successfully"


async def _purge_entry(
    storage: Storage, folder: Folder, entry: TrashedFile, actor: Actor, why: str
) -> int:
    """Delete a trash entry's objects, then its rows (audited); how many objects went.
    Objects go first: a purge that dies half-way leaves a row restore refuses, never a
    purged record that reindex would bring back."""
    container = folder.container.name
    removed = await storage.delete_tree(container, folder.name, trash_path(entry.trash_id))
    async with transaction() as conn:
        await repository.delete_versions(conn, folder_id=folder.id, trash_id=entry.trash_id)
        await repository.delete_trashed(conn, entry.id)
        await record(
            conn,
            actor,
            "trash_purge",
            container=container,
            folder=folder.name,
            blob=entry.name,
            details=f"{why} ({entry.trash_id}, {removed} objects)",
        )
    return removed


async def purge_trashed(
    folder: Folder, name: str, confirmation: str, actor: Actor, storage: Storage
) -> str:
    """Delete the most recently deleted file of that name from the trash for good."""
    if confirmation != "DELETE":
        raise ApiError(400, CONFIRM_PURGE)
    async with transaction() as conn:
        entry = await _newest_trashed(conn, folder, name)
    await _purge_entry(storage, folder, entry, actor, "deleted for good by an admin")
    return "File deleted permanently"


# Retention.


@dataclass
class PurgeReport:
    """What a retention purge removed."""

    trash: list[str] = field(default_factory=list)  # container/folder/name (trashId)
    versions: list[str] = field(default_factory=list)  # container/folder/name (versionId)
    ran: bool = True  # False: another process holds the lease

    def lines(self) -> list[str]:
        """A human-readable account."""
        if not self.ran:
            return ["Another process is purging now; nothing done."]
        return [
            *(f"Purged from the trash: {entry}" for entry in self.trash),
            *(f"Purged old version: {entry}" for entry in self.versions),
            f"Trash entries purged: {len(self.trash)}",
            f"Old versions purged: {len(self.versions)}",
        ]


async def _purge_version(storage: Storage, version: FileVersion, why: str) -> str:
    folder = await repository.folder_by_id(version.folder_id)
    container = folder.container.name
    await storage.delete_path(
        container, folder.name, version_path(version.name, version.version_id)
    )
    await storage.delete_path(
        container, folder.name, version_path(version.name, version.version_id, original=True)
    )
    async with transaction() as conn:
        await repository.delete_versions(conn, id=version.id)
        await record(
            conn,
            SYSTEM,
            "version_purge",
            container=container,
            folder=folder.name,
            blob=version.name,
            details=f"version {version.version_id}: {why}",
        )
    return f"{container}/{folder.name}/{version.name} ({version.version_id})"


async def purge_expired(
    storage: Storage, settings: Settings, *, now: datetime | None = None, lease_seconds: float = 600
) -> PurgeReport:
    """Purge trash entries older than BFF_TRASH_DAYS and old versions beyond BFF_VERSION_DAYS
    or BFF_MAX_VERSIONS; one process at a time (the others return ran=False)."""
    now = now or datetime.now(UTC)
    async with leased(RETENTION_LEASE, lease_seconds) as held:
        if not held:
            return PurgeReport(ran=False)
        report = PurgeReport()
        cutoff = now - timedelta(days=settings.trash_days)
        while entries := await repository.expired_trash(cutoff, _PURGE_BATCH):
            for entry in entries:
                folder = await repository.folder_by_id(entry.folder_id)
                why = f"in the trash over {settings.trash_days} days"
                await _purge_entry(storage, folder, entry, SYSTEM, why)
                report.trash.append(
                    f"{folder.container.name}/{folder.name}/{entry.name} ({entry.trash_id})"
                )
        if settings.version_days:
            old = now - timedelta(days=settings.version_days)
            while versions := await repository.expired_versions(old, _PURGE_BATCH):
                for version in versions:
                    why = f"older than {settings.version_days} days"
                    report.versions.append(await _purge_version(storage, version, why))
        if settings.max_versions:
            for version in await repository.versions_beyond(settings.max_versions):
                why = f"beyond the newest {settings.max_versions}"
                report.versions.append(await _purge_version(storage, version, why))
    if report.trash or report.versions:
        log.info(
            "Retention: %d trash entries and %d old versions purged",
            len(report.trash),
            len(report.versions),
        )
    return report
