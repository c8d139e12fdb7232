"""Reads and writes of the file index, and the statistics the database counts.

The statistics read only the caller's assigned folders (they take the caller's user id).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from tortoise.backends.base.client import BaseDBAsyncClient
from tortoise.functions import Count

from bff.containers.models import Folder
from bff.db import as_datetime, fetch
from bff.files.models import FileVersion, FolderVisit, StoredFile, TrashedFile

_BATCH = 500  # rows per statement when inserting or deleting many

# File counts per type of the caller's folders: a subquery of their folder ids, so the database
# starts from the (folder_id, extension) index of those folders instead of joining every file.
MY_FILE_COUNTS = (
    "SELECT folder_id, extension, COUNT(*) AS n FROM files WHERE folder_id IN "
    "(SELECT folder_id FROM folder_assignments WHERE user_id = ?) {held}"
    "GROUP BY folder_id, extension"
)
NOT_HELD = "AND scan_state <> 'held' "  # held files counted for those who may see them only
MY_FOLDERS = (
    "SELECT fa.folder_id, f.name AS folder, c.name AS container FROM folder_assignments fa "
    "JOIN folders f ON f.id = fa.folder_id JOIN containers c ON c.id = f.container_id "
    "WHERE fa.user_id = ?"
)
# Every indexed file with its folder's and container's names: what a backup checks its copied
# objects against, and a restore its restored storage (plain SQL, run on any connection).
INDEX_ROWS = (
    "SELECT c.name AS container, f.name AS folder, x.name AS name, x.size AS size, "
    "x.original_rtf_name AS original FROM files x JOIN folders f ON f.id = x.folder_id "
    "JOIN containers c ON c.id = f.container_id"
)

# What a view needs of its file (or of an earlier version of it), found by names in one query:
# each view's decision is on the path of its bytes.
NAMED_FILE = (
    "FROM containers c JOIN folders f ON f.container_id = c.id "
    "JOIN files x ON x.folder_id = f.id AND x.name = ? "
)
VIEWED_FILE = (
    "SELECT x.content_type, x.last_modified, x.size, x.scan_state "
    + NAMED_FILE
    + "WHERE c.name = ? AND f.name = ?"
)
VIEWED_VERSION = (
    # held when the file is or the version was (bff/files/service.may_see)
    "SELECT v.content_type, v.last_modified, v.size, "
    "CASE WHEN v.scan_state = 'held' THEN v.scan_state ELSE x.scan_state END AS scan_state "
    + NAMED_FILE
    + "JOIN file_versions v ON v.folder_id = f.id AND v.name = x.name AND v.version_id = ? "
    "AND v.trash_id IS NULL WHERE c.name = ? AND f.name = ?"
)


async def viewed(
    container: str, folder: str, name: str, version_id: str | None = None
) -> tuple[str, datetime, int, str] | None:
    """(content type, last modified, size, the file's scan state) of a file, or of a live
    earlier version of it, by names; None when any of them is missing."""
    if version_id is None:
        rows = await fetch(VIEWED_FILE, name, container, folder)
    else:
        rows = await fetch(VIEWED_VERSION, name, version_id, container, folder)
    if not rows:
        return None
    row = rows[0]
    return (
        str(row["content_type"]),
        as_datetime(row["last_modified"]),
        int(row["size"]),
        str(row["scan_state"]),
    )


async def file_named(folder_id: int, name: str) -> StoredFile | None:
    """An indexed file of a folder by name."""
    return await StoredFile.get_or_none(folder_id=folder_id, name=name)


async def file_spelt(folder_id: int, names: list[str], *, held: bool = True) -> StoredFile | None:
    """An indexed file of a folder under any of names (other spellings of one name; held:
    held files too)."""
    if not names:
        return None
    found = StoredFile.filter(folder_id=folder_id, name__in=names)
    return await (found if held else found.exclude(scan_state="held")).first()


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


async def scan_state_of(conn: BaseDBAsyncClient, file_id: int) -> str:
    """A file's scan state inside transaction conn ("held" if it is gone: told to admins only)."""
    found = await StoredFile.filter(id=file_id).using_db(conn).values_list("scan_state", flat=True)
    return str(found[0]) if found else "held"


async def update_file(conn: BaseDBAsyncClient, row: StoredFile, values: dict[str, Any]) -> None:
    """Change an indexed file's values inside transaction conn."""
    await row.update_from_dict(values).save(using_db=conn)


async def delete_file(conn: BaseDBAsyncClient, file_id: int) -> None:
    """Drop one file from the index inside transaction conn."""
    await StoredFile.filter(id=file_id).using_db(conn).delete()


def _live_versions(held: bool, **where: Any) -> Any:
    """Versions of live files matching where (held: held versions too)."""
    found = FileVersion.filter(trash_id=None, **where)
    return found if held else found.exclude(scan_state="held")


async def earlier_version_counts(folder_id: int, *, held: bool) -> dict[str, int]:
    """How many earlier versions each live file of a folder has (files with none are absent;
    held: held versions counted too, for those who may see them only)."""
    rows = await _live_versions(held, folder_id=folder_id).values_list("name", flat=True)
    counts: dict[str, int] = {}
    for name in rows:
        counts[str(name)] = counts.get(str(name), 0) + 1
    return counts


async def earlier_version_count(folder_id: int, name: str, *, held: bool) -> int:
    """How many earlier versions a live file has (held: held versions counted too)."""
    return int(await _live_versions(held, folder_id=folder_id, name=name).count())


async def live_version(folder_id: int, name: str, version_id: str) -> FileVersion | None:
    """An earlier version of a live file."""
    return await FileVersion.get_or_none(
        folder_id=folder_id, name=name, version_id=version_id, trash_id=None
    )


# Versions and the trash (bff/files/versions.py). `where` filters are model field lookups.


def _on(query: Any, conn: BaseDBAsyncClient | None) -> Any:
    return query.using_db(conn) if conn is not None else query


async def add_version(conn: BaseDBAsyncClient, values: dict[str, Any]) -> FileVersion:
    """Record an earlier version inside transaction conn."""
    return await FileVersion.create(using_db=conn, **values)


async def versions_where(conn: BaseDBAsyncClient | None, **where: Any) -> list[FileVersion]:
    """Versions matching where, newest first."""
    query = FileVersion.filter(**where).order_by("-replaced_at", "-id")
    return list(await _on(query, conn))


async def update_versions(conn: BaseDBAsyncClient, ids: list[int], values: dict[str, Any]) -> None:
    """Change versions inside transaction conn."""
    if ids:
        await FileVersion.filter(id__in=ids).using_db(conn).update(**values)


async def delete_versions(conn: BaseDBAsyncClient, **where: Any) -> int:
    """Drop the versions matching where inside transaction conn; how many."""
    return int(await FileVersion.filter(**where).using_db(conn).delete())


async def add_trashed(conn: BaseDBAsyncClient, values: dict[str, Any]) -> TrashedFile:
    """Record a trash entry inside transaction conn."""
    return await TrashedFile.create(using_db=conn, **values)


async def trashed_where(conn: BaseDBAsyncClient | None, **where: Any) -> list[TrashedFile]:
    """Trash entries matching where, most recently deleted first."""
    query = TrashedFile.filter(**where).order_by("-deleted_at", "-id")
    return list(await _on(query, conn))


async def delete_trashed(conn: BaseDBAsyncClient, entry_id: int) -> None:
    """Drop a trash entry inside transaction conn."""
    await TrashedFile.filter(id=entry_id).using_db(conn).delete()


async def trashed_version_counts(folder_id: int) -> dict[str, int]:
    """How many earlier versions each trash entry of a folder has, by trash id."""
    rows = await FileVersion.filter(folder_id=folder_id, trash_id__not_isnull=True).values_list(
        "trash_id", flat=True
    )
    counts: dict[str, int] = {}
    for trash_id in rows:
        counts[str(trash_id)] = counts.get(str(trash_id), 0) + 1
    return counts


async def expired_trash(deleted_before: datetime, limit: int) -> list[TrashedFile]:
    """Trash entries deleted before a time, oldest first, at most limit."""
    return list(await TrashedFile.filter(deleted_at__lt=deleted_before).order_by("id").limit(limit))


# The retention never purges a held version (stored while the scanner was unavailable, never
# seen by the folder's staff): it waits for an admin, who may restore it to have it scanned.


async def expired_versions(replaced_before: datetime, limit: int) -> list[FileVersion]:
    """Versions of live files replaced before a time, oldest first, at most limit (held ones
    never)."""
    query = _live_versions(False, replaced_at__lt=replaced_before).order_by("id")
    return list(await query.limit(limit))


async def versions_beyond(keep: int) -> list[FileVersion]:
    """Versions of live files past the newest `keep` of their file, held ones neither counted
    nor purged (the database finds the files over the limit; only their surplus is loaded)."""
    over = (
        await _live_versions(False)
        .annotate(n=Count("id"))
        .group_by("folder_id", "name")
        .filter(n__gt=keep)
        .values("folder_id", "name")
    )
    beyond: list[FileVersion] = []
    for file in over:
        query = _live_versions(False, folder_id=file["folder_id"], name=file["name"])
        beyond += await query.order_by("-replaced_at", "-id").offset(keep)
    return beyond


async def folder_by_id(folder_id: int) -> Folder:
    """A folder with its container loaded."""
    return await Folder.get(id=folder_id).prefetch_related("container")


async def assigned_folders_of(user_id: int) -> list[dict[str, Any]]:
    """The caller's assigned folders: folder_id, folder and container names (unordered)."""
    return await fetch(MY_FOLDERS, user_id)


async def file_counts_of(user_id: int, *, held: bool) -> list[dict[str, Any]]:
    """File counts by folder_id and extension (n) over the caller's assigned folders (held:
    held files counted too)."""
    return await fetch(MY_FILE_COUNTS.format(held="" if held else NOT_HELD), user_id)


async def file_counts_in(folder_ids: list[int], *, held: bool) -> list[dict[str, Any]]:
    """File counts by folder_id and extension (n) of some folders (one page of the caller's;
    held: held files counted too)."""
    if not folder_ids:
        return []
    found = StoredFile.filter(folder_id__in=folder_ids)
    if not held:
        found = found.exclude(scan_state="held")
    rows = (
        await found.annotate(n=Count("id"))
        .group_by("folder_id", "extension")
        .values("folder_id", "extension", "n")
    )
    return list(rows)


# Reindexing.


async def files_by_name(
    folder_id: int, conn: BaseDBAsyncClient | None = None
) -> dict[str, StoredFile]:
    """A folder's indexed files by name (inside transaction conn, if given)."""
    return {r.name: r for r in await _on(StoredFile.filter(folder_id=folder_id), conn)}


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


async def lock_folder(conn: BaseDBAsyncClient, folder_id: int) -> None:
    """Lock a folder's row until transaction conn ends (on SQLite, which has no row locks, the
    transaction holds the database's write lock already: bff/db.py `transaction`)."""
    await Folder.filter(id=folder_id).using_db(conn).select_for_update().first()


async def current_file_ids(container_id: int | None = None) -> list[int]:
    """The ids of every indexed file (of one container), in order."""
    query = (
        StoredFile.all()
        if container_id is None
        else StoredFile.filter(folder__container_id=container_id)
    )
    ids = await query.order_by("id").values_list("id", flat=True)
    return [int(str(i)) for i in ids]


async def record_visit(
    conn: BaseDBAsyncClient,
    user_id: int,
    folder_id: int,
    now: datetime,
    window: timedelta,
    longest: timedelta,
) -> datetime | None:
    """Record inside transaction conn that user visits folder at now; the time the files new
    to this visit were added after (None: a first visit). Within window of the visit's last
    request and longest of its first, the visit goes on and keeps its time; otherwise a new
    visit begins, since the last request. One row per user and folder (two first visits at
    once: both None)."""
    query = FolderVisit.filter(user_id=user_id, folder_id=folder_id).using_db(conn)
    row = await query.select_for_update().first()
    if row is None:
        visit = FolderVisit(
            user_id=user_id, folder_id=folder_id, visited_at=now, since=None, started_at=now
        )
        await FolderVisit.bulk_create([visit], ignore_conflicts=True, using_db=conn)
        return None
    last = as_datetime(row.visited_at)
    began = last if row.started_at is None else as_datetime(row.started_at)
    if now - last <= window and now - began <= longest:  # the same visit goes on
        since = None if row.since is None else as_datetime(row.since)
    else:  # a new visit: files added since the last one ended
        since, began = last, now
    await (
        FolderVisit.filter(id=row.id)
        .using_db(conn)
        .update(visited_at=now, since=since, started_at=began)
    )
    return since
