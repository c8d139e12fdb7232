"""Reindexing a folder's versions and trash (bff/files/versions.py): objects under its
`.bff-versions` and `.bff-trash` with no row are indexed (their time from their id; who uploaded
or deleted them is unknown; never screened, so held until the rescan finds them clean when a
scanner is configured, else unscanned, as reindex.py's files), rows whose objects are gone are
dropped. Called by reindex.py inside the transaction that holds the folder's lock.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tortoise.backends.base.client import BaseDBAsyncClient

from bff.containers.models import Folder
from bff.files import removals, repository
from bff.files.names import (
    DEFAULT_CONTENT_TYPE,
    ORIGINAL_SUFFIX,
    PROFILE_IMAGE_NAME,
    RTF_ORIGINAL_PREFIX,
    TEXT_CONTENT_TYPE,
    extension_of,
    id_time,
    trash_key,
    trashed_version_key,
    version_key,
)
from bff.scan.service import HELD, UNSCANNED, current_config
from storage.base import (
    TRASH_DIR,
    VERSIONS_DIR,
    FileInfo,
    ObjectKey,
    Storage,
    guess_content_type,
)


async def objects_inside(
    storage: Storage, where: ObjectKey, top: str
) -> list[tuple[tuple[str, ...], FileInfo]]:
    """Every object under folder where's top directory, by its path inside the folder."""
    found = [(ObjectKey.parse(i.name).inner, i) async for i in storage.walk(where.child(top))]
    return sorted(found, key=lambda item: item[0])


@dataclass
class HistoryCounts:
    """What reindexing versions and trash entries changed."""

    versions_added: int = 0
    versions_removed: int = 0
    trash_added: int = 0
    trash_removed: int = 0


def _version_values(
    name: str, version_id: str, info: FileInfo, originals: set[str]
) -> dict[str, Any]:
    """Row values of a version found in storage alone (who uploaded it is not known)."""
    original = version_id in originals and extension_of(name) == "txt"
    return {
        "name": name,
        "version_id": version_id,
        "content_type": TEXT_CONTENT_TYPE
        if original
        else (guess_content_type(name) or DEFAULT_CONTENT_TYPE),
        "size": info.size,
        "last_modified": id_time(version_id) or info.last_modified,
        "original_rtf_name": name.rpartition(".")[0] + ".rtf" if original else None,
        "replaced_at": info.last_modified,
        "scan_state": _unscreened(),
    }


def _unscreened() -> str:
    """The scan state of content found in storage: no upload brought it in, no scan saw it."""
    return HELD if current_config().configured else UNSCANNED


def _split_versions(
    objects: list[tuple[tuple[str, ...], FileInfo]], depth: int
) -> tuple[dict[tuple[str, ...], FileInfo], set[tuple[str, ...]]]:
    """Version objects by their path up to depth (kept RTF originals apart)."""
    contents: dict[tuple[str, ...], FileInfo] = {}
    originals: set[tuple[str, ...]] = set()
    for path, info in objects:
        if len(path) != depth:
            continue
        if path[-1].endswith(ORIGINAL_SUFFIX):
            originals.add((*path[:-1], path[-1].removesuffix(ORIGINAL_SUFFIX)))
        else:
            contents[path] = info
    return contents, originals


async def reindex_history(
    conn: BaseDBAsyncClient,
    storage: Storage,
    container: str,
    folder: Folder,
    report: HistoryCounts,
) -> None:
    """Inside transaction conn, the folder locked: make its version and trash rows match its
    `.bff-versions` and `.bff-trash` (counted in report)."""
    where = ObjectKey.folder(container, folder.name)
    stored, originals = _split_versions(await objects_inside(storage, where, VERSIONS_DIR), 3)
    trash_objects = await objects_inside(storage, where, TRASH_DIR)
    trashed, trashed_originals = _split_versions(trash_objects, 4)
    trashed = {p: i for p, i in trashed.items() if p[2] == VERSIONS_DIR}
    # A trash entry's own content: `.bff-trash/{id}/{name}` (not its kept RTF original).
    entries = {
        path[1]: (path[2], info)
        for path, info in trash_objects
        if len(path) == 3 and not path[2].startswith(RTF_ORIGINAL_PREFIX)
    }
    # Objects a committed change left to remove get no new rows (bff/files/removals.py).
    leftovers = await removals.pending_paths(conn, folder.id)
    rows = await repository.versions_where(conn, folder_id=folder.id)
    entry_rows = {e.trash_id: e for e in await repository.trashed_where(conn, folder_id=folder.id)}
    known = set()
    for row in rows:
        path = (
            version_key(where, row.name, row.version_id)
            if row.trash_id is None
            else trashed_version_key(where, row.trash_id, row.version_id)
        ).inner
        if path in stored or path in trashed:
            known.add(path)
        else:
            await repository.delete_versions(conn, id=row.id)
            report.versions_removed += 1
    for trash_id, entry in entry_rows.items():
        if trash_id not in entries:
            await repository.delete_trashed(conn, entry.id)
            report.trash_removed += 1
    for trash_id, (name, info) in entries.items():
        if trash_id in entry_rows or trash_key(where, trash_id).inner in leftovers:
            continue
        original = any(
            p[:2] == (TRASH_DIR, trash_id) and p[2].startswith(RTF_ORIGINAL_PREFIX)
            for p, _ in trash_objects
            if len(p) == 3
        )
        deleted_at = id_time(trash_id) or info.last_modified
        await repository.add_trashed(
            conn,
            {
                "folder_id": folder.id,
                "name": name,
                "trash_id": trash_id,
                "content_type": TEXT_CONTENT_TYPE
                if original
                else (guess_content_type(name) or DEFAULT_CONTENT_TYPE),
                "size": info.size,
                "last_modified": info.last_modified,
                "is_profile_image": name == PROFILE_IMAGE_NAME,
                "original_rtf_name": name.rpartition(".")[0] + ".rtf" if original else None,
                "deleted_at": deleted_at,
                "scan_state": _unscreened(),
            },
        )
        report.trash_added += 1
    for path, info in stored.items():
        if path not in known and path not in leftovers:
            values = _version_values(
                path[1], path[2], info, {p[2] for p in originals if p[1] == path[1]}
            )
            await repository.add_version(conn, {"folder_id": folder.id, **values})
            report.versions_added += 1
    for path, info in trashed.items():
        trash_id = path[1]
        entry_left = trash_key(where, trash_id).inner in leftovers
        if path not in known and trash_id in entries and not entry_left:
            name = entries[trash_id][0]
            ids = {p[3] for p in trashed_originals if p[1] == trash_id}
            values = _version_values(name, path[3], info, ids)
            values.update(folder_id=folder.id, trash_id=trash_id)
            await repository.add_version(conn, values)
            report.versions_added += 1
