"""Reindexing: make the file index (and the containers and folders) match what storage holds.

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
    PROFILE_IMAGE_NAME,
    RTF_ORIGINAL_PREFIX,
    TEXT_CONTENT_TYPE,
    extension_of,
    text_name_for,
)
from bff.naming import container_name_error, folder_name_error
from storage.base import RESERVED_PREFIX, FileInfo, Storage


@dataclass
class ReindexReport:
    """What a reindex changed."""

    containers_added: list[str] = field(default_factory=list)
    folders_added: list[str] = field(default_factory=list)
    files_added: int = 0
    files_updated: int = 0
    files_removed: int = 0
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
