"""The trash: an admin's delete moves a file, with its versions, to its folder's
`.bff-trash/{trashId}/` (layout in bff/files/versions.py), from where it can be restored until
the retention (bff/files/retention.py) or an admin purges it. Content is copied, never moved:
the old place is removed after the commit (bff/files/removals.py).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from tortoise.backends.base.client import BaseDBAsyncClient

from bff.audit.service import Actor, record
from bff.containers.models import Folder
from bff.db import transaction
from bff.errors import ApiError
from bff.files import removals, repository
from bff.files.models import TrashedFile
from bff.files.names import (
    PROFILE_IMAGE_NAME,
    extension_of,
    folder_key,
    new_id,
    original_rtf_key,
    trash_key,
    trashed_version_key,
    version_key,
)
from bff.files.schemas import TrashedBlob, TrashList
from bff.files.service import FILE_NOT_FOUND, PROFILE_NOT_FOUND, announce, audit, may_see
from bff.files.versions import thumbnail_of, uploader
from bff.jobs import service as jobs
from bff.live.events import FILE_DELETED, FILE_RESTORED, PROFILE_CHANGED
from bff.naming import other_spellings
from config.settings import Settings
from storage.base import NotFound, ObjectKey, Storage

TRASH_NOT_FOUND = "This file is not in the trash."
CONFIRM_PURGE = "Type DELETE to confirm deleting this file for good."
TRASH_INCOMPLETE = "This file's content is missing from the trash; it cannot be restored."


async def trash_file(folder: Folder, name: str, actor: Actor, storage: Storage) -> str:
    """Move a file with all its versions to the folder's trash (an admin's delete)."""
    container = folder.container.name
    where = folder_key(folder)
    now = datetime.now(UTC)
    trash_id = new_id(now)
    async with transaction() as conn:
        await repository.lock_folder(conn, folder.id)
        row = await repository.locked_file(conn, folder.id, name)
        if row is None:
            raise ApiError(404, PROFILE_NOT_FOUND if name == PROFILE_IMAGE_NAME else FILE_NOT_FOUND)
        moves = [(where.child(name), trash_key(where, trash_id, name))]
        if row.original_rtf_name:
            key = original_rtf_key(row.original_rtf_name)
            moves.append((where.child(key), trash_key(where, trash_id, key)))
        versions = await repository.versions_where(
            conn, folder_id=folder.id, name=name, trash_id=None
        )
        for v in versions:
            moves.append(
                (
                    version_key(where, name, v.version_id),
                    trashed_version_key(where, trash_id, v.version_id),
                )
            )
            if v.original_rtf_name:
                moves.append(
                    (
                        version_key(where, name, v.version_id, original=True),
                        trashed_version_key(where, trash_id, v.version_id, original=True),
                    )
                )
        moved = [m for m in moves if await _copy(storage, *m)]
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
                "active_content": row.active_content,
                "displayable": row.displayable,
                "source": row.source,
                "scan_state": row.scan_state,  # a held content stays the admins' only
                "scanned_at": row.scanned_at,
                "deleted_at": now,
                "deleted_by_name": actor.name,
                "deleted_by_role": actor.role,
            },
        )
        await repository.delete_file(conn, row.id)
        leftover_ids = await removals.defer(
            conn, folder.id, [*(source for source, _ in moved), thumbnail_of(folder, row)]
        )
        announce(
            PROFILE_CHANGED if row.is_profile_image else FILE_DELETED,
            folder,
            name,
            scan_state=row.scan_state,
        )
        await record(
            conn,
            actor,
            "profile_delete" if row.is_profile_image else "file_delete",
            container=container,
            folder=folder.name,
            blob=name,
            details=f"moved to the trash ({trash_id})",
        )
    await removals.carry_out(storage, folder, leftover_ids)
    return (
        "Profile image deleted successfully"
        if row.is_profile_image
        else "File deleted successfully"
    )


async def _copy(storage: Storage, source: ObjectKey, target: ObjectKey) -> bool:
    """Copy an object; False if the source is missing (a version whose bytes vanished)."""
    try:
        await storage.copy_object(source, target)
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
                deletedBy=uploader(e.deleted_by_name, e.deleted_by_role),
                purgeAfter=purge_after(e.deleted_at, settings),
            )
            for e in entries
            if may_see(e.scan_state, actor)  # a held content stays the admins' only
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
    where = folder_key(folder)
    async with transaction() as conn:
        await repository.lock_folder(conn, folder.id)
        entry = await _newest_trashed(conn, folder, name)
        if not may_see(entry.scan_state, actor):
            raise ApiError(404, TRASH_NOT_FOUND)
        if await repository.locked_file(conn, folder.id, name) is not None:
            raise _exists_now(name)
        if (twin := await repository.file_spelt(folder.id, other_spellings(name))) is not None:
            raise _exists_now(twin.name)  # the same name in another Unicode spelling
        tid = entry.trash_id
        if not await _copy(storage, trash_key(where, tid, name), where.child(name)):
            raise ApiError(409, TRASH_INCOMPLETE)
        if entry.original_rtf_name:
            key = original_rtf_key(entry.original_rtf_name)
            await _copy(storage, trash_key(where, tid, key), where.child(key))
        versions = await repository.versions_where(conn, folder_id=folder.id, trash_id=tid)
        for v in versions:
            await _copy(
                storage,
                trashed_version_key(where, tid, v.version_id),
                version_key(where, name, v.version_id),
            )
            if v.original_rtf_name:
                await _copy(
                    storage,
                    trashed_version_key(where, tid, v.version_id, original=True),
                    version_key(where, name, v.version_id, original=True),
                )
        await repository.update_versions(conn, [v.id for v in versions], {"trash_id": None})
        info = await storage.stat(container, folder.name, name)
        restored = await repository.create_file(
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
                "active_content": entry.active_content,
                "displayable": entry.displayable,
                "source": entry.source,
                "scan_state": entry.scan_state,
                "scanned_at": entry.scanned_at,
            },
        )
        await repository.delete_trashed(conn, entry.id)
        await jobs.file_changed(conn, restored)  # its text was removed with its row
        leftover_ids = await removals.defer(conn, folder.id, [trash_key(where, tid)])
        await record(
            conn,
            actor,
            "trash_restore",
            container=container,
            folder=folder.name,
            blob=name,
            details=f"from the trash ({tid})",
        )
        announce(
            PROFILE_CHANGED if entry.is_profile_image else FILE_RESTORED,
            folder,
            name,
            scan_state=entry.scan_state,
        )
    await removals.carry_out(storage, folder, leftover_ids)
    return "File restored successfully"


async def purge_entry(
    storage: Storage, folder: Folder, entry: TrashedFile, actor: Actor, why: str
) -> int:
    """Delete a trash entry's objects, then its rows (audited); how many objects went.
    Objects go first: a purge that dies half-way leaves a row restore refuses, never a
    purged record that reindex would bring back."""
    container = folder.container.name
    removed = await storage.delete_tree(trash_key(folder_key(folder), entry.trash_id))
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
    await purge_entry(storage, folder, entry, actor, "deleted for good by an admin")
    return "File deleted permanently"
