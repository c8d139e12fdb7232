"""Reindexing: make the file index (and the containers and folders) match what storage holds.

Versions and trash entries too (reindex_history.py), and thumbnails (their jobs recorded again
where a picture is missing, pictures of no current content removed).

For files written by other tools, and for index rows whose bytes vanished. Never for uploads
that did not commit: their bytes sit in the storage's staging area, which storage listings never
show, or (after a crash between the move and the commit) under a name a pending upload still
holds, which is skipped here and removed by the staging sweep (bff/files/staging.py). Nor for
objects a committed delete or restore left to remove (bff/files/removals.py).

Files added or changed here came in by no upload, so no screening saw them: with a scanner
configured (BFF_CLAMD) they are indexed held, the admins' only, until the periodic rescan
(bff/scan/rescan.py, held files first) finds them clean; without one, unscanned as every file
then. A changed file of another size is new content (held, a new version id: no link or
picture of the old content serves it); one whose only change is its time keeps its state and
is scanned again first among the recent files (`_screening`). The content checks
(bff/files/content.py) are an upload's: not run on them.

Safe beside a serving deployment: each folder is decided in one transaction holding the lock an
upload's commit, a delete and a restore take, with its storage listed inside it, so no change of
the folder commits between what is read of storage and of the index.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from tortoise.backends.base.client import BaseDBAsyncClient

from bff.containers import repository as containers
from bff.containers.models import Folder
from bff.db import transaction
from bff.files import pending_repository, preview_repository, removals, repository, thumbnails
from bff.files.models import StoredFile
from bff.files.names import (
    DEFAULT_CONTENT_TYPE,
    PROFILE_IMAGE_NAME,
    RTF_ORIGINAL_PREFIX,
    TEXT_CONTENT_TYPE,
    extension_of,
    new_id,
    text_name_for,
)
from bff.files.reindex_history import HistoryCounts, objects_inside, reindex_history
from bff.jobs import repository as jobs_repository
from bff.jobs import service as jobs
from bff.jobs.models import KIND_THUMBNAIL
from bff.naming import container_name_error, folder_name_error, stored_name_problem
from bff.scan.service import CLEAN, HELD, UNSCANNED, current_config
from storage.base import PREVIEWS_DIR, RESERVED_PREFIX, FileInfo, ObjectKey, Storage


@dataclass
class ReindexReport(HistoryCounts):
    """What a reindex changed."""

    containers_added: list[str] = field(default_factory=list)
    folders_added: list[str] = field(default_factory=list)
    files_added: int = 0
    files_updated: int = 0
    files_removed: int = 0
    thumbnails_removed: int = 0
    thumbnails_recorded: int = 0
    skipped: list[str] = field(default_factory=list)
    unfinished: list[str] = field(default_factory=list)
    kept_names: list[str] = field(default_factory=list)

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
            f"Thumbnails removed (no current content of theirs): {self.thumbnails_removed}",
            f"Thumbnail jobs recorded (missing thumbnails, made again): {self.thumbnails_recorded}",
            *(f"Skipped (name not allowed): {name}" for name in self.skipped),
            *(f"Skipped (upload not committed): {name}" for name in self.unfinished),
            *(f"Kept as stored, though it could not be given today: {n}" for n in self.kept_names),
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


# A last scan long ago: the periodic rescan's recent files (oldest scan first) take it next.
_SCAN_AGAIN = datetime(2000, 1, 1, tzinfo=UTC)


def _unscreened() -> dict[str, Any]:
    """Content no upload brought in was never screened: held (the admins' only) until the
    rescan's clean scan when a scanner is configured, else unscanned as every file then."""
    return {
        "scan_state": HELD if current_config().configured else UNSCANNED,
        "scanned_at": None,
        "scan_tried_at": None,
    }


def _screening(row: StoredFile, values: dict[str, Any]) -> dict[str, Any]:
    """A changed file's scan columns: another size is new content (`_unscreened`); the same size
    at another time is taken as the same bytes copied by a tool that does not keep times
    (rsync without -t, aws s3 sync): it keeps its state, and a clean one is scanned again by
    the next rescan rather than hidden from every member of staff meanwhile."""
    if row.size != values["size"]:
        return _unscreened()
    return {"scanned_at": _SCAN_AGAIN} if row.scan_state == CLEAN else {}


async def _reindex_folder(
    conn: BaseDBAsyncClient,
    storage: Storage,
    container: str,
    folder: Folder,
    report: ReindexReport,
) -> None:
    """Inside transaction conn, the folder locked: make its index rows match its stored files."""
    # A name only an unfinished upload holds is not a file yet (its upload may still fail, or
    # died between moving its bytes and committing): the staging sweep decides about it. An
    # indexed name stays as it is.
    unfinished = await pending_repository.pending_names(container, folder.name, conn)
    rows = await repository.files_by_name(folder.id, conn)
    originals = {r.original_rtf_name for r in rows.values() if r.original_rtf_name}
    # An object a committed change left to remove is not a file, unless a row holds it again.
    leftovers = {p[0] for p in await removals.pending_paths(conn, folder.id) if len(p) == 1}
    infos = await storage.list_files(container, folder.name)
    report.kept_names += _kept_names(f"{container}/{folder.name}/", infos)
    desired = _desired(
        [
            info
            for info in infos
            if info.name not in leftovers
            or info.name in rows
            or info.name.removeprefix(RTF_ORIGINAL_PREFIX) in originals
        ]
    )
    gone = [r.id for name, r in rows.items() if name not in desired]
    if gone:
        await repository.delete_files(conn, gone)
        report.files_removed += len(gone)
    held = sorted(n for n in desired if n in unfinished and n not in rows)
    report.unfinished += [f"{container}/{folder.name}/{name}" for name in held]
    new = {
        n: v | _unscreened() for n, v in desired.items() if n not in rows and n not in unfinished
    }
    changed: list[StoredFile] = []
    if new:
        await repository.add_files(conn, folder, new)
        report.files_added += len(new)
        added = await repository.files_by_name(folder.id, conn)
        changed += [added[name] for name in new if name in added]
    for name, values in desired.items():
        row = rows.get(name)
        if row is not None and name not in unfinished and _differs(row, values):
            values = {**values, "content_type": row.content_type, **_screening(row, values)}
            if row.size != values["size"]:  # new content: never the old one's links or pictures
                values["version_id"] = new_id(datetime.now(UTC))
            await repository.update_file(conn, row, values)
            report.files_updated += 1
            changed.append(row)
    for row in changed:  # their text for search, read in the background
        await jobs.file_changed(conn, row)


async def _reindex_thumbnails(
    conn: BaseDBAsyncClient,
    storage: Storage,
    container: str,
    folder: Folder,
    report: ReindexReport,
) -> None:
    """Inside transaction conn, the folder locked: thumbnails (bff/files/thumbnails.py) are not
    files; remove those of no current content, and record the thumbnail job again of every
    file that should have one and has neither a job nor its picture in storage."""
    rows = await repository.files_by_name(folder.id, conn)
    current = {name: thumbnails.content_id(row.version_id) for name, row in rows.items()}
    stored = set()
    where = ObjectKey.folder(container, folder.name)
    for path, _ in await objects_inside(storage, where, PREVIEWS_DIR):
        name, version = path[1], path[-1].removesuffix(".webp")
        if len(path) == 3 and current.get(name) == version:
            stored.add(name)
        elif await storage.delete_object(where.child(*path)):
            report.thumbnails_removed += 1
    previews = await preview_repository.preview_rows(conn, folder.id)
    with_job = await jobs_repository.files_with_job(conn, folder.id, KIND_THUMBNAIL)
    now = datetime.now(UTC)
    for name, row in rows.items():
        if not thumbnails.wants(row):
            continue
        preview = previews.get(name)
        lost = preview is not None and preview.ready and name not in stored
        if lost or (preview is None and row.id not in with_job):
            await jobs_repository.put(conn, row.id, KIND_THUMBNAIL, row.version_id, now)
            report.thumbnails_recorded += 1


async def _reindex_locked(
    storage: Storage, container: str, folder: Folder, report: ReindexReport
) -> None:
    """Reindex one folder in one transaction under the lock an upload's commit, a delete and a
    restore take (bff/files/staging.py `claim`), storage listed inside it: no change of the
    folder commits between what this reads of storage and of the index."""
    async with transaction() as conn:
        await repository.lock_folder(conn, folder.id)
        await _reindex_folder(conn, storage, container, folder, report)
        await reindex_history(conn, storage, container, folder, report)
        await _reindex_thumbnails(conn, storage, container, folder, report)


def _kept_names(prefix: str, infos: list[FileInfo]) -> list[str]:
    """The stored file names a person could not give today (bff/naming.py: not NFC, invisible
    characters, mixed scripts), with why: indexed as they are, so they keep working."""
    kept = []
    for info in infos:
        original = info.name.startswith(RTF_ORIGINAL_PREFIX)  # listed with its text file
        if not original and (problem := stored_name_problem(info.name, "file name")):
            kept.append(f"{prefix}{info.name!a} ({problem})")
    return kept


async def reindex(storage: Storage) -> ReindexReport:
    """Rebuild the index (and containers and folders) from what storage holds; safe beside a
    serving deployment (each folder is decided under its lock)."""
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
            await _reindex_locked(storage, container_name, folder, report)
    # Indexed folders storage did not list (gone, or made after the listing): each decided the
    # same way, its storage read again under its lock.
    for folder_id in sorted(await repository.indexed_folder_ids() - seen):
        folder = await repository.folder_by_id(folder_id)
        await _reindex_locked(storage, folder.container.name, folder, report)
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
