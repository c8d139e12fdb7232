"""Files scanned again after they came in (issue 49), every RESCAN_SECONDS in one process at a
time (a lease), a bounded batch a run (RESCAN_BATCH files, RESCAN_BUDGET_SECONDS), each read
back from storage and streamed to clamd with no database connection held meanwhile:

- held files (stored while the scanner was unavailable, BFF_SCAN_UNAVAILABLE=hold), first;
- unscanned files (stored before a scanner was configured, or restored from a backup of files
  never scanned): they stay visible while they wait, as they were before;
- earlier versions and trash entries held or unscanned (found by `storage reindex`, or stored
  before a scanner was configured), once: clean ones are not scanned again;
- recent files (their content stored in the last BFF_RESCAN_DAYS) whose last scan is
  BFF_RESCAN_HOURS old, oldest scan first: signatures change every day.

The verdict:

- clean: scan_state "clean", scanned_at now; a held file is released, audited
  `file_released`, and announced `file:uploaded` to the folder's room so the staff who could
  not see it refetch;
- a finding: its bytes copied into quarantine (reason "rescan"), audited `file_rejected`, the
  admins alerted `file:quarantined`, and the file removed from the folder (its row, its object
  and thumbnail; `file:deleted` to the folder's staff, to admins only for a held one, whose
  name was never the others'). Its earlier versions, if any, stay as
  they were: a later upload of the name lists them again. An earlier version or trash entry
  is the same: clean, marked so (a held one audited `file_released`); a finding quarantined,
  the version (or the whole trash entry, its versions with it) removed;
- a file over BFF_SCAN_MAX_MB is never picked (a held one stays held: an admin decides);
  clamd itself unavailable (it no longer answers PING): the batch stops, the next run tries
  again. One file that reaches no verdict (clamd timed out on it, refused it as too large or
  answered an error; its object is missing, or the quarantine copy failed) is noted
  (scan_tried_at, logged by its id, never its name) and the batch goes on: it is tried again
  only after every file due not tried yet, of every group (repository.due_files), so however
  many such files there are, they never hold up the others. A file whose content changed meanwhile
  is left to its new content's own verdict.
"""

from __future__ import annotations

import logging
import time
from datetime import UTC, datetime, timedelta

from tortoise.backends.base.client import BaseDBAsyncClient

from bff import metrics
from bff.audit.service import record
from bff.containers.models import Folder
from bff.db import transaction
from bff.files import removals
from bff.files import repository as files_repository
from bff.files.models import FileVersion, StoredFile, TrashedFile
from bff.files.names import (
    folder_key,
    new_id,
    original_rtf_key,
    quarantine_key,
    trash_key,
    trashed_version_key,
    version_key,
)
from bff.files.service import announce
from bff.files.versions import thumbnail_of
from bff.leases import Periodic, leased
from bff.live.events import ADMINS, FILE_DELETED, FILE_QUARANTINED, FILE_UPLOADED, publish
from bff.scan import clamd, repository
from bff.scan.models import RESCAN
from bff.scan.repository import Content
from bff.scan.service import CLEAN, HELD, ScanConfig, current_config, scan_content
from bff.users.bootstrap import SYSTEM
from config.logs import shown
from storage.base import ObjectKey, Storage, StorageError

log = logging.getLogger(__name__)

RESCAN_LEASE = "scan-rescan"
RESCAN_SECONDS = 60.0
RESCAN_BATCH = 20
RESCAN_BUDGET_SECONDS = 45.0  # within the minute between runs, well within the lease


async def rescan_files(
    storage: Storage,
    *,
    lease_seconds: float = 300,
    batch: int = RESCAN_BATCH,
    budget_seconds: float = RESCAN_BUDGET_SECONDS,
) -> int:
    """Scan a batch of the files due a scan if clamd answers (one process at a time): at most
    batch files, none started past budget_seconds; how many were scanned to a verdict."""
    config = current_config()
    if not config.configured:
        return 0
    async with leased(RESCAN_LEASE, lease_seconds) as held:
        if not held or not await clamd.ping(config.address, min(2.0, config.seconds)):
            return 0
        deadline = time.monotonic() + budget_seconds
        settled = 0
        for row in await _due(config, batch):
            if time.monotonic() >= deadline:
                break
            try:
                settled += await _rescan(storage, row)
            except clamd.Unavailable as failure:
                if not await clamd.ping(config.address, min(2.0, config.seconds)):
                    log.warning("Rescan of files stopped: %s", shown(failure.reason))
                    break
                log.warning("Rescan of file #%d: no verdict: %s", row.id, shown(failure.reason))
                await repository.tried(row, datetime.now(UTC))
            except (StorageError, OSError) as failure:  # its object missing, a copy failed
                log.warning("Rescan of file #%d failed: %s", row.id, type(failure).__name__)
                await repository.tried(row, datetime.now(UTC))
        return settled


async def _due(config: ScanConfig, batch: int) -> list[Content]:
    now = datetime.now(UTC)
    recent = now - timedelta(days=config.rescan_days) if config.rescan_days else None
    return await repository.due_files(
        batch, config.max_bytes, recent, now - timedelta(hours=config.rescan_hours)
    )


async def _rescan(storage: Storage, row: Content) -> bool:
    if not isinstance(row, StoredFile):
        return await _rescan_history(storage, row)
    folder = await files_repository.folder_by_id(row.folder_id)
    key = ObjectKey.file(folder.container.name, folder.name, row.name)
    # A converted RTF's listed text is the portal's own; what came in is its kept original.
    scanned = _original_of(folder, row) or key
    signature = await _scan(storage, scanned)
    now = datetime.now(UTC)
    if signature is None:
        return await _release(folder, row, now)
    return await _quarantine(storage, folder, row, scanned, signature, now)


async def _scan(storage: Storage, key: ObjectKey) -> str | None:
    """The signature clamd finds in a stored object (None: clean), timed."""
    started = time.perf_counter()
    try:
        result = await scan_content(lambda: storage.open_object(key), current_config())
    except clamd.Unavailable:
        metrics.scanned("unavailable", time.perf_counter() - started)
        raise
    metrics.scanned(
        "clean" if result.signature is None else "infected", time.perf_counter() - started
    )
    return result.signature


def _original_of(folder: Folder, row: StoredFile) -> ObjectKey | None:
    if not row.original_rtf_name:
        return None
    return folder_key(folder).child(original_rtf_key(str(row.original_rtf_name)))


async def _current(conn: BaseDBAsyncClient, row: StoredFile) -> StoredFile | None:
    """The file's row, locked, if it still holds the content scanned, in the state it was
    picked in."""
    current = await files_repository.locked_file(conn, row.folder_id, row.name)
    if (
        current is None
        or current.version_id != row.version_id
        or current.scan_state != row.scan_state
    ):
        return None
    return current


async def _release(folder: Folder, row: StoredFile, now: datetime) -> bool:
    async with transaction() as conn:
        current = await _current(conn, row)
        if current is None:
            return False
        await files_repository.update_file(
            conn, current, {"scan_state": CLEAN, "scanned_at": now, "scan_tried_at": None}
        )
        if row.scan_state == HELD:  # its staff could not see it until now
            announce(FILE_UPLOADED, folder, row.name, scan_state=CLEAN)
            await _audit_release(conn, folder, row.name, _released(row))
    return True


async def _quarantine(
    storage: Storage,
    folder: Folder,
    row: StoredFile,
    found_in: ObjectKey,
    signature: str,
    now: datetime,
) -> bool:
    """Move the file whose content (found_in: its object, or a converted RTF's original) the
    scanner found into quarantine."""
    key = ObjectKey.file(folder.container.name, folder.name, row.name)
    kept = quarantine_key(folder_key(folder), new_id(now))
    await storage.copy_object(found_in, kept)
    async with transaction() as conn:
        current = await _current(conn, row)
        if current is not None:
            await files_repository.delete_file(conn, current.id)
            gone = [key, thumbnail_of(folder, current), _original_of(folder, current)]
            leftover_ids = await removals.defer(conn, folder.id, [k for k in gone if k])
            announce(FILE_DELETED, folder, row.name, scan_state=row.scan_state)
            await _quarantined(conn, folder, row, signature, kept, _what(row), now)
    return await _after_quarantine(
        storage, folder, kept, leftover_ids if current is not None else None
    )


async def _quarantined(
    conn: BaseDBAsyncClient,
    folder: Folder,
    row: Content,
    signature: str,
    kept: ObjectKey,
    what: str,
    now: datetime,
) -> None:
    """Inside the transaction that removes a content the rescan found (its bytes copied to
    kept): its quarantine row, audited file_rejected, the admins alerted."""
    container = folder.container.name
    entry = await repository.add(
        conn,
        container=container,
        folder=folder.name,
        name=row.name,
        signature=signature[:255],
        size=row.size,
        uploaded_by_id=None,  # the rows keep who uploaded by name only
        uploaded_by_name=row.uploaded_by_name,
        found_at=now,
        reason=RESCAN,
        object_key=kept.path,
    )
    await record(
        conn,
        SYSTEM,
        "file_rejected",
        container=container,
        folder=folder.name,
        blob=row.name,
        details=f"virus scanner found {signature} in {what}; kept in quarantine #{entry.id}",
    )
    publish(
        FILE_QUARANTINED,
        {
            "id": entry.id,
            "signature": signature,
            "container": container,
            "folder": folder.name,
            "name": row.name,
        },
        [ADMINS],
    )


History = FileVersion | TrashedFile


def _history_keys(folder: Folder, row: History) -> tuple[ObjectKey, list[ObjectKey]]:
    """The object an earlier version's or a trash entry's scan reads (a converted RTF's kept
    original, as for a file), and the objects its removal removes (a trash entry: its whole
    tree, its earlier versions with it)."""
    where = folder_key(folder)
    if isinstance(row, TrashedFile):
        content = trash_key(where, row.trash_id, row.name)
        original = (
            trash_key(where, row.trash_id, original_rtf_key(row.original_rtf_name))
            if row.original_rtf_name
            else None
        )
        return original or content, [trash_key(where, row.trash_id)]
    if row.trash_id is None:
        content = version_key(where, row.name, row.version_id)
        kept_original = version_key(where, row.name, row.version_id, original=True)
    else:
        content = trashed_version_key(where, row.trash_id, row.version_id)
        kept_original = trashed_version_key(where, row.trash_id, row.version_id, original=True)
    if row.original_rtf_name:
        return kept_original, [content, kept_original]
    return content, [content]


def _history_what(row: History) -> str:
    state = "held" if row.scan_state == HELD else "never scanned"
    if isinstance(row, TrashedFile):
        return f"a trash entry ({row.trash_id}, {state})"
    return f"an earlier version ({row.version_id}, {state})"


async def _current_history(conn: BaseDBAsyncClient, row: History) -> History | None:
    """The version or trash entry, the folder locked, if it is still where and as it was
    picked (a version moved to or from the trash meanwhile is left to the next run)."""
    await files_repository.lock_folder(conn, row.folder_id)
    current = await type(row).filter(id=row.id).using_db(conn).first()
    if current is None or current.scan_state != row.scan_state:
        return None
    if isinstance(row, FileVersion) and getattr(current, "trash_id", None) != row.trash_id:
        return None
    return current


async def _rescan_history(storage: Storage, row: History) -> bool:
    """Scan an earlier version or a trash entry held or never scanned: clean, it is marked so
    (a held one released to the staff, audited); a finding, its bytes go to quarantine and
    it is removed."""
    folder = await files_repository.folder_by_id(row.folder_id)
    scanned, objects = _history_keys(folder, row)
    signature = await _scan(storage, scanned)
    now = datetime.now(UTC)
    if signature is None:
        async with transaction() as conn:
            if await _current_history(conn, row) is None:
                return False
            await (
                type(row)
                .filter(id=row.id)
                .using_db(conn)
                .update(scan_state=CLEAN, scanned_at=now, scan_tried_at=None)
            )
            if row.scan_state == HELD:
                details = f"{_history_what(row)} scanned clean; shown to the folder's staff"
                await _audit_release(conn, folder, row.name, details)
        return True
    kept = quarantine_key(folder_key(folder), new_id(now))
    await storage.copy_object(scanned, kept)
    async with transaction() as conn:
        current = await _current_history(conn, row)
        if current is not None:
            if isinstance(row, TrashedFile):
                await files_repository.delete_versions(
                    conn, folder_id=folder.id, trash_id=row.trash_id
                )
                await files_repository.delete_trashed(conn, row.id)
            else:
                await files_repository.delete_versions(conn, id=row.id)
            leftover_ids = await removals.defer(conn, folder.id, objects)
            await _quarantined(conn, folder, row, signature, kept, _history_what(row), now)
    return await _after_quarantine(
        storage, folder, kept, leftover_ids if current is not None else None
    )


async def _after_quarantine(
    storage: Storage, folder: Folder, kept: ObjectKey, leftover_ids: list[int] | None
) -> bool:
    """After a quarantine's transaction: its objects removed (leftover_ids), or, when the
    content changed meanwhile (None), the quarantine's copy, not needed; whether it was
    quarantined."""
    if leftover_ids is None:
        await storage.delete_object(kept)
        return False
    metrics.quarantined()
    await removals.carry_out(storage, folder, leftover_ids)
    return True


async def _audit_release(conn: BaseDBAsyncClient, folder: Folder, name: str, details: str) -> None:
    """Audit held content a clean scan let out (`file_released`, by the system)."""
    await record(
        conn,
        SYSTEM,
        "file_released",
        container=folder.container.name,
        folder=folder.name,
        blob=name,
        details=details,
    )


def _released(row: StoredFile) -> str:
    by = f" (uploaded by {row.uploaded_by_name})" if row.uploaded_by_name else ""
    return f"held content{by} scanned clean; shown to the folder's staff"


def _what(row: StoredFile) -> str:
    if row.scan_state == HELD:
        return "held content"
    if row.scan_state == CLEAN:
        return "content scanned again"
    return "content never scanned before"


def rescanner(storage: Storage) -> Periodic:
    """`rescan_files` every RESCAN_SECONDS (first one interval after start)."""
    return Periodic(
        RESCAN_SECONDS, [("Rescan of files", lambda: rescan_files(storage))], at_start=False
    )
