"""Reindexing: make the file index (and the containers and folders) match what storage holds.

Versions and trash entries too (bff/files/versions.py): objects under a folder's
`.bff-versions` and `.bff-trash` with no row are indexed (their time from their id; who
uploaded or deleted them is unknown), rows whose objects are gone are dropped.

For files written by other tools, and for index rows whose bytes vanished. Never for uploads
that did not commit: their bytes sit in the storage's staging area, which storage listings never
show, or (after a crash between the move and the commit) under a name a pending upload still
holds, which is skipped here and removed by the staging sweep (bff/files/staging.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from bff.containers import repository as containers
from bff.containers.models import Folder
from bff.db import transaction
from bff.files import repository
from bff.files.models import StoredFile
from bff.files.names import (
    DEFAULT_CONTENT_TYPE,
    ORIGINAL_SUFFIX,
    PROFILE_IMAGE_NAME,
    RTF_ORIGINAL_PREFIX,
    TEXT_CONTENT_TYPE,
    extension_of,
    id_time,
    text_name_for,
    trashed_version_path,
    version_path,
)
from bff.naming import container_name_error, folder_name_error
from storage.base import (
    RESERVED_PREFIX,
    TRASH_DIR,
    VERSIONS_DIR,
    FileInfo,
    Storage,
    guess_content_type,
)


@dataclass
class ReindexReport:
    """What a reindex changed."""

    containers_added: list[str] = field(default_factory=list)
    folders_added: list[str] = field(default_factory=list)
    files_added: int = 0
    files_updated: int = 0
    files_removed: int = 0
    versions_added: int = 0
    versions_removed: int = 0
    trash_added: int = 0
    trash_removed: int = 0
    skipped: list[str] = field(default_factory=list)
    unfinished: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        """A short human-readable summary."""
        return [
            f"Containers added: {len(self.containers_added)}",
            f"Folders added: {len(self.folders_added)}",
            f"Files added: {self.files_added}",
            f"Files updated: {self.files_updated}",
            f"Files removed (no longer in storage): {self.files_removed}",
            f"Versions added: {self.versions_added}",
            f"Versions removed (no longer in storage): {self.versions_removed}",
            f"Trash entries added: {self.trash_added}",
            f"Trash entries removed (no longer in storage): {self.trash_removed}",
            *(f"Skipped (name not allowed): {name}" for name in self.skipped),
            *(f"Skipped (upload not committed): {name}" for name in self.unfinished),
        ]


def _desired(infos: list[FileInfo]) -> dict[str, dict[str, Any]]:
    """Index values for a folder's stored files (kept RTF originals mark their text file)."""
    originals = {
        text_name_for(info.name.removeprefix(RTF_ORIGINAL_PREFIX)): info.name.removeprefix(
            RTF_ORIGINAL_PREFIX
        )
        for info in infos
        if info.name.startswith(RTF_ORIGINAL_PREFIX)
    }
    desired: dict[str, dict[str, Any]] = {}
    for info in infos:
        if info.name.startswith(RTF_ORIGINAL_PREFIX):
            continue
        original = originals.get(info.name)
        desired[info.name] = {
            "size": info.size,
            "last_modified": info.last_modified,
            "extension": extension_of(info.name),
            "is_profile_image": info.name == PROFILE_IMAGE_NAME,
            "converted_from_rtf": original is not None,
            "original_rtf_name": original,
            "content_type": TEXT_CONTENT_TYPE
            if original
            else (info.content_type or DEFAULT_CONTENT_TYPE),
        }
    return desired


def _differs(row: StoredFile, values: dict[str, Any]) -> bool:
    moved = abs((row.last_modified - values["last_modified"]).total_seconds())
    return bool(
        row.size != values["size"]
        or moved > 1
        or row.is_profile_image != values["is_profile_image"]
        or row.original_rtf_name != values["original_rtf_name"]
    )


async def _reindex_folder(
    container: str, folder: Folder, infos: list[FileInfo], report: ReindexReport
) -> None:
    # A name only an unfinished upload holds is not a file yet (its upload may still fail, or
    # died between moving its bytes and committing): the staging sweep decides about it. An
    # indexed name stays as it is.
    unfinished = await repository.pending_names(container, folder.name)
    desired = _desired(infos)
    rows = await repository.files_by_name(folder.id)
    async with transaction() as conn:
        gone = [r.id for name, r in rows.items() if name not in desired]
        if gone:
            await repository.delete_files(conn, gone)
            report.files_removed += len(gone)
        held = sorted(n for n in desired if n in unfinished and n not in rows)
        report.unfinished += [f"{container}/{folder.name}/{name}" for name in held]
        new = {n: v for n, v in desired.items() if n not in rows and n not in unfinished}
        if new:
            await repository.add_files(conn, folder, new)
            report.files_added += len(new)
        for name, values in desired.items():
            row = rows.get(name)
            if row is not None and name not in unfinished and _differs(row, values):
                values = {**values, "content_type": row.content_type}  # keep the uploaded type
                await repository.update_file(conn, row, values)
                report.files_updated += 1


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
    }


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


async def _reindex_history(
    storage: Storage, container: str, folder: Folder, report: ReindexReport
) -> None:
    """Make a folder's version and trash rows match its `.bff-versions` and `.bff-trash`."""
    stored, originals = _split_versions(
        await storage.list_tree(container, folder.name, (VERSIONS_DIR,)), 3
    )
    trash_objects = await storage.list_tree(container, folder.name, (TRASH_DIR,))
    trashed, trashed_originals = _split_versions(trash_objects, 4)
    trashed = {p: i for p, i in trashed.items() if p[2] == VERSIONS_DIR}
    # A trash entry's own content: `.bff-trash/{id}/{name}` (not its kept RTF original).
    entries = {
        path[1]: (path[2], info)
        for path, info in trash_objects
        if len(path) == 3 and not path[2].startswith(RTF_ORIGINAL_PREFIX)
    }
    rows = await repository.versions_where(None, folder_id=folder.id)
    entry_rows = {e.trash_id: e for e in await repository.trashed_where(None, folder_id=folder.id)}
    async with transaction() as conn:
        known = set()
        for row in rows:
            path = (
                version_path(row.name, row.version_id)
                if row.trash_id is None
                else trashed_version_path(row.trash_id, row.version_id)
            )
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
            if trash_id in entry_rows:
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
                },
            )
            report.trash_added += 1
        for path, info in stored.items():
            if path not in known:
                values = _version_values(
                    path[1], path[2], info, {p[2] for p in originals if p[1] == path[1]}
                )
                await repository.add_version(conn, {"folder_id": folder.id, **values})
                report.versions_added += 1
        for path, info in trashed.items():
            trash_id = path[1]
            if path not in known and trash_id in entries:
                name = entries[trash_id][0]
                ids = {p[3] for p in trashed_originals if p[1] == trash_id}
                values = _version_values(name, path[3], info, ids)
                values.update(folder_id=folder.id, trash_id=trash_id)
                await repository.add_version(conn, values)
                report.versions_added += 1


async def reindex(storage: Storage) -> ReindexReport:
    """Rebuild the index (and containers and folders) from what storage holds."""
    report = ReindexReport()
    seen: set[int] = set()
    for container_name in await storage.list_containers():
        if container_name_error(container_name):
            report.skipped.append(container_name)
            continue
        container, created = await containers.ensure_container(container_name)
        if created:
            report.containers_added.append(container_name)
        for folder_name in await storage.list_folders(container_name):
            if folder_name_error(folder_name):
                report.skipped.append(f"{container_name}/{folder_name}")
                continue
            folder, created = await containers.ensure_folder(container, folder_name)
            if created:
                report.folders_added.append(f"{container_name}/{folder_name}")
            seen.add(folder.id)
            await _reindex_folder(
                container_name,
                folder,
                await storage.list_files(container_name, folder_name),
                report,
            )
            await _reindex_history(storage, container_name, folder, report)
    # Folders no longer in storage: their files are gone too.
    vanished = sorted(await repository.indexed_folder_ids() - seen)
    report.files_removed += await repository.delete_files_of_folders(vanished)
    return report


def is_file_key(key: str) -> bool:
    """Whether an object key is a folder's file (or kept RTF original) that the index lists,
    not one of the product's own objects (versions, trash, audit checkpoints: '.bff-...')."""
    parts = key.split("/")
    return len(parts) == 3 and not any(p.startswith(RESERVED_PREFIX) for p in parts)


def indexed_objects(rows: list[dict[str, Any]]) -> dict[str, int | None]:
    """The object keys the index rows (INDEX_ROWS) stand for: each file with its size, and each
    kept RTF original (size unknown: None)."""
    wanted: dict[str, int | None] = {}
    for row in rows:
        folder = f"{row['container']}/{row['folder']}/"
        wanted[folder + row["name"]] = int(row["size"])
        if row.get("original"):
            wanted[folder + RTF_ORIGINAL_PREFIX + row["original"]] = None
    return wanted


def index_differences(rows: list[dict[str, Any]], objects: dict[str, int]) -> list[str]:
    """How the index rows and the folders' stored objects (file key -> size) disagree, one line
    each: an indexed file missing or of another size, a stored file the index does not list."""
    wanted = indexed_objects(rows)
    problems = []
    for key, size in sorted(wanted.items()):
        if key not in objects:
            problems.append(f"indexed but not stored: {key}")
        elif size is not None and objects[key] != size:
            problems.append(f"stored size {objects[key]} but indexed {size}: {key}")
    problems += [f"stored but not indexed: {key}" for key in sorted(set(objects) - set(wanted))]
    return problems
