"""Queries of the work a change leaves pending: uploads staged but not yet committed
(bff/files/staging.py) and objects a committed change left to remove (bff/files/removals.py),
with what the sweeps that finish them read of the index.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from tortoise.backends.base.client import BaseDBAsyncClient

from bff.containers.models import Folder
from bff.db import transaction
from bff.files.models import FileVersion, PendingRemoval, PendingUpload, StoredFile, TrashedFile
from bff.files.repository import lock_folder

# Pending uploads (bff/files/staging.py) and what their sweep reads.


async def add_pending(
    container: str, folder: str, names_and_keys: list[tuple[str, str]], instance: str, now: datetime
) -> list[PendingUpload]:
    """Record staged objects about to be written (committed at once, before any byte)."""
    async with transaction() as conn:
        return [
            await PendingUpload.create(
                container=container,
                folder=folder,
                name=name,
                staging_key=key,
                started_at=now,
                alive_at=now,
                instance=instance,
                using_db=conn,
            )
            for name, key in names_and_keys
        ]


async def locked_pending(conn: BaseDBAsyncClient, ids: list[int]) -> list[PendingUpload]:
    """Pending uploads by id that still exist, locked until transaction conn ends."""
    query = PendingUpload.filter(id__in=ids).using_db(conn).select_for_update()
    return list(await query)


async def delete_pending(conn: BaseDBAsyncClient | None, ids: list[int]) -> None:
    """Forget pending uploads (inside transaction conn, or alone)."""
    query = PendingUpload.filter(id__in=ids)
    await (query.using_db(conn) if conn is not None else query).delete()


async def touch_pending(ids: list[int], now: datetime) -> None:
    """Mark pending uploads as still streaming."""
    await PendingUpload.filter(id__in=ids).update(alive_at=now)


async def stale_pending_ids(silent_since: datetime) -> list[int]:
    """Pending uploads not heard of since a time, oldest first."""
    rows = await PendingUpload.filter(alive_at__lt=silent_since).order_by("id").values("id")
    return [int(row["id"]) for row in rows]


async def claim_stale_pending(conn: BaseDBAsyncClient, pending_id: int) -> PendingUpload | None:
    """A pending upload locked for the sweep, or None if gone or held by its upload (on
    PostgreSQL an upload committing holds its row: SKIP LOCKED passes over it)."""
    query = PendingUpload.filter(id=pending_id).using_db(conn)
    return await query.select_for_update(skip_locked=True).first()


async def pending_staging_keys() -> set[str]:
    """The staging keys of every pending upload."""
    return {str(key) for key in await PendingUpload.all().values_list("staging_key", flat=True)}


async def pending_names(
    container: str, folder: str, conn: BaseDBAsyncClient | None = None
) -> set[str]:
    """Storage names of a folder that only an unfinished upload holds so far (inside
    transaction conn, if given)."""
    query = PendingUpload.filter(container=container, folder=folder)
    names = await (query.using_db(conn) if conn is not None else query).values_list(
        "name", flat=True
    )
    return {str(name) for name in names}


async def locked_folder(conn: BaseDBAsyncClient, container: str, folder: str) -> Folder | None:
    """A folder by names, locked until transaction conn ends (serialises commits of its
    files with the sweep)."""
    found = await Folder.filter(container__name=container, name=folder).using_db(conn).first()
    if found is not None:
        await lock_folder(conn, found.id)
    return found


async def indexed_row_for(
    conn: BaseDBAsyncClient, folder_id: int, name: str, rtf_original_of: str | None
) -> StoredFile | None:
    """The index row that accounts for a stored name: the file's own row, or for a kept RTF
    original (rtf_original_of: the RTF's name) the row of its converted text."""
    query = StoredFile.filter(folder_id=folder_id).using_db(conn)
    if rtf_original_of is not None:
        return await query.filter(original_rtf_name=rtf_original_of).first()
    return await query.filter(name=name).first()


# Removals a committed change left to do (bff/files/removals.py).


async def add_removals(
    conn: BaseDBAsyncClient, folder_id: int, paths: list[str], now: datetime
) -> list[int]:
    """Record objects to remove inside transaction conn; their ids."""
    rows = [
        await PendingRemoval.create(folder_id=folder_id, path=p, created_at=now, using_db=conn)
        for p in paths
    ]
    return [row.id for row in rows]


async def removals_where(conn: BaseDBAsyncClient, **where: Any) -> list[PendingRemoval]:
    """Recorded removals matching where (model field lookups), inside transaction conn."""
    return list(await PendingRemoval.filter(**where).using_db(conn).order_by("id"))


async def delete_removals(conn: BaseDBAsyncClient, ids: list[int]) -> None:
    """Forget recorded removals inside transaction conn."""
    await PendingRemoval.filter(id__in=ids).using_db(conn).delete()


async def stale_removal_folders(recorded_before: datetime) -> list[int]:
    """Folders with removals recorded before a time (their process died before doing them)."""
    rows = await PendingRemoval.filter(created_at__lt=recorded_before).values("folder_id")
    return sorted({int(row["folder_id"]) for row in rows})


async def version_exists(conn: BaseDBAsyncClient, folder_id: int, version_id: str) -> bool:
    """Whether a live file's earlier version with this id is recorded."""
    query = FileVersion.filter(folder_id=folder_id, version_id=version_id, trash_id=None)
    return await query.using_db(conn).exists()


async def trash_entry_exists(conn: BaseDBAsyncClient, folder_id: int, trash_id: str) -> bool:
    """Whether a trash entry with this id is recorded."""
    return await TrashedFile.filter(folder_id=folder_id, trash_id=trash_id).using_db(conn).exists()


async def current_version_is(
    conn: BaseDBAsyncClient, folder_id: int, name: str, version_id: str
) -> bool:
    """Whether a folder's file of that name has, now, the content of that version ('' for a
    file indexed before versions existed is the version 'initial')."""
    row = await StoredFile.filter(folder_id=folder_id, name=name).using_db(conn).first()
    return row is not None and (row.version_id or "initial") == version_id
