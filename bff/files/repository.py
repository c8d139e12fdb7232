"""Reads and writes of the file index, and the statistics the database counts.

The statistics read only the caller's assigned folders (they take the caller's user id).
"""

from __future__ import annotations

from typing import Any

from tortoise.backends.base.client import BaseDBAsyncClient

from bff.containers.models import Folder
from bff.db import fetch
from bff.files.models import StoredFile

_BATCH = 500  # rows per statement when inserting or deleting many

# File counts per type of the caller's folders: a subquery of their folder ids, so the database
# starts from the (folder_id, extension) index of those folders instead of joining every file.
MY_FILE_COUNTS = (
    "SELECT folder_id, extension, COUNT(*) AS n FROM files WHERE folder_id IN "
    "(SELECT folder_id FROM folder_assignments WHERE user_id = ?) GROUP BY folder_id, extension"
)
MY_FOLDERS = (
    "SELECT fa.folder_id, f.name AS folder, c.name AS container FROM folder_assignments fa "
    "JOIN folders f ON f.id = fa.folder_id JOIN containers c ON c.id = f.container_id "
    "WHERE fa.user_id = ?"
)


async def file_named(folder_id: int, name: str) -> StoredFile | None:
    """An indexed file of a folder by name."""
    return await StoredFile.get_or_none(folder_id=folder_id, name=name)


async def files_of(folder_id: int) -> list[StoredFile]:
    """A folder's indexed files, sorted by name."""
    return await StoredFile.filter(folder_id=folder_id).order_by("name")


async def locked_file(conn: BaseDBAsyncClient, folder_id: int, name: str) -> StoredFile | None:
    """An indexed file of a folder, locked until transaction conn ends."""
    query = StoredFile.filter(folder_id=folder_id, name=name).using_db(conn)
    return await query.select_for_update().first()


async def create_file(
    conn: BaseDBAsyncClient, folder: Folder, name: str, values: dict[str, Any]
) -> StoredFile:
    """Index a file inside transaction conn."""
    return await StoredFile.create(folder=folder, name=name, using_db=conn, **values)


async def update_file(conn: BaseDBAsyncClient, row: StoredFile, values: dict[str, Any]) -> None:
    """Change an indexed file's values inside transaction conn."""
    await row.update_from_dict(values).save(using_db=conn)


async def delete_file(conn: BaseDBAsyncClient, file_id: int) -> None:
    """Drop one file from the index inside transaction conn."""
    await StoredFile.filter(id=file_id).using_db(conn).delete()


async def assigned_folders_of(user_id: int) -> list[dict[str, Any]]:
    """The caller's assigned folders: folder_id, folder and container names (unordered)."""
    return await fetch(MY_FOLDERS, user_id)


async def file_counts_of(user_id: int) -> list[dict[str, Any]]:
    """File counts by folder_id and extension (n) over the caller's assigned folders."""
    return await fetch(MY_FILE_COUNTS, user_id)


# Reindexing.


async def files_by_name(folder_id: int) -> dict[str, StoredFile]:
    """A folder's indexed files by name."""
    return {r.name: r for r in await StoredFile.filter(folder_id=folder_id)}


async def delete_files(conn: BaseDBAsyncClient, file_ids: list[int]) -> None:
    """Drop files from the index inside transaction conn."""
    await StoredFile.filter(id__in=file_ids).using_db(conn).delete()


async def add_files(
    conn: BaseDBAsyncClient, folder: Folder, values_by_name: dict[str, dict[str, Any]]
) -> None:
    """Index many files of a folder inside transaction conn."""
    rows = [StoredFile(folder=folder, name=n, **v) for n, v in values_by_name.items()]
    await StoredFile.bulk_create(rows, batch_size=_BATCH, using_db=conn)


async def indexed_folder_ids() -> set[int]:
    """The folders that have indexed files."""
    rows = await StoredFile.all().distinct().values("folder_id")
    return {int(row["folder_id"]) for row in rows}


async def delete_files_of_folders(folder_ids: list[int]) -> int:
    """Drop every indexed file of folders; return how many."""
    removed = 0
    for start in range(0, len(folder_ids), _BATCH):
        removed += await StoredFile.filter(
            folder_id__in=folder_ids[start : start + _BATCH]
        ).delete()
    return removed
