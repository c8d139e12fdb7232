"""Held files scanned once clamd answers again (issue 49): a file stored "held" while the scanner
was unavailable (BFF_SCAN_UNAVAILABLE=hold) is read back from storage and streamed to clamd,
every RESCAN_SECONDS in one process at a time (a lease), a batch at a time:

- clean: released (scan_state "clean", scanned_at), announced `file:uploaded` to the folder's
  room so the staff who could not see it refetch;
- a finding: its bytes copied into quarantine (reason "rescan"), audited `file_rejected`, the
  admins alerted `file:quarantined`, and the file removed from the folder (its row, its object
  and thumbnail; `file:deleted`). Its earlier versions, if any, stay as they were: a later
  upload of the name lists them again;
- the file over BFF_SCAN_MAX_MB: stays held (an admin decides); clamd unavailable: the batch
  stops, the next run tries again. A file whose content changed meanwhile is left to its new
  content's own verdict.
"""

from __future__ import annotations

import logging
import time
from datetime import UTC, datetime

from tortoise.backends.base.client import BaseDBAsyncClient

from bff import metrics
from bff.audit.service import record
from bff.containers.models import Folder
from bff.db import transaction
from bff.files import removals
from bff.files import repository as files_repository
from bff.files.models import StoredFile
from bff.files.names import folder_key, new_id, quarantine_key
from bff.files.service import announce
from bff.files.versions import thumbnail_of
from bff.leases import Periodic, leased
from bff.live.events import ADMINS, FILE_DELETED, FILE_QUARANTINED, FILE_UPLOADED, publish
from bff.scan import clamd, repository
from bff.scan.models import RESCAN
from bff.scan.service import CLEAN, HELD, current_config
from bff.users.bootstrap import SYSTEM
from config.logs import shown
from storage.base import ObjectKey, Storage

log = logging.getLogger(__name__)

RESCAN_LEASE = "scan-rescan"
RESCAN_SECONDS = 60.0
RESCAN_BATCH = 20


async def rescan_held(storage: Storage, *, lease_seconds: float = 300) -> int:
    """Scan a batch of held files if clamd answers (one process at a time); how many were
    settled (released or quarantined)."""
    config = current_config()
    if not config.configured:
        return 0
    async with leased(RESCAN_LEASE, lease_seconds) as held:
        if not held or not await clamd.ping(config.address, min(2.0, config.seconds)):
            return 0
        settled = 0
        for row in await repository.held_files(RESCAN_BATCH):
            try:
                settled += await _rescan(storage, row)
            except clamd.Unavailable as failure:
                log.warning("Rescan of held files stopped: %s", shown(failure.reason))
                break
        return settled


async def _rescan(storage: Storage, row: StoredFile) -> bool:
    config = current_config()
    if row.size > config.max_bytes:
        return False  # never scanned whole: stays held
    folder = await files_repository.folder_by_id(row.folder_id)
    key = ObjectKey.file(folder.container.name, folder.name, row.name)
    started = time.perf_counter()
    stream = clamd.Instream(config.address, config.seconds)
    try:
        await stream.open()
        async with await storage.open_object(key) as chunks:
            async for chunk in chunks:
                await stream.send(chunk)
        result = await stream.answer()
    except clamd.Unavailable:
        metrics.scanned("unavailable", time.perf_counter() - started)
        raise
    finally:
        stream.close()
    metrics.scanned(
        "clean" if result.signature is None else "infected", time.perf_counter() - started
    )
    now = datetime.now(UTC)
    if result.signature is None:
        return await _release(folder, row, now)
    return await _quarantine(storage, folder, row, key, result.signature, now)


async def _current(conn: BaseDBAsyncClient, row: StoredFile) -> StoredFile | None:
    """The file's row, locked, if it still holds the content scanned and is still held."""
    current = await files_repository.locked_file(conn, row.folder_id, row.name)
    if current is None or current.version_id != row.version_id or current.scan_state != HELD:
        return None
    return current


async def _release(folder: Folder, row: StoredFile, now: datetime) -> bool:
    async with transaction() as conn:
        current = await _current(conn, row)
        if current is None:
            return False
        await files_repository.update_file(conn, current, {"scan_state": CLEAN, "scanned_at": now})
        announce(FILE_UPLOADED, folder, row.name)
    return True


async def _quarantine(
    storage: Storage, folder: Folder, row: StoredFile, key: ObjectKey, signature: str, now: datetime
) -> bool:
    kept = quarantine_key(folder_key(folder), new_id(now))
    await storage.copy_object(key, kept)
    container = folder.container.name
    async with transaction() as conn:
        current = await _current(conn, row)
        if current is not None:
            entry = await repository.add(
                conn,
                container=container,
                folder=folder.name,
                name=row.name,
                signature=signature[:255],
                size=row.size,
                uploaded_by_id=None,  # the file row keeps who uploaded by name only
                uploaded_by_name=row.uploaded_by_name,
                found_at=now,
                reason=RESCAN,
                object_key=kept.path,
            )
            await files_repository.delete_file(conn, current.id)
            leftover_ids = await removals.defer(
                conn, folder.id, [key, thumbnail_of(folder, current)]
            )
            announce(FILE_DELETED, folder, row.name)
            await record(
                conn,
                SYSTEM,
                "file_rejected",
                container=container,
                folder=folder.name,
                blob=row.name,
                details=f"virus scanner found {signature} in held content; "
                f"kept in quarantine #{entry.id}",
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
    if current is None:  # changed meanwhile: the copy is not needed
        await storage.delete_object(kept)
        return False
    metrics.quarantined()
    await removals.carry_out(storage, folder, leftover_ids)
    return True


def rescanner(storage: Storage) -> Periodic:
    """`rescan_held` every RESCAN_SECONDS (first one interval after start)."""
    return Periodic(
        RESCAN_SECONDS, [("Rescan of held files", lambda: rescan_held(storage))], at_start=False
    )
