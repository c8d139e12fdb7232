"""Staged uploads: an upload's bytes become a file only when its index row commits.

1. `begin` records a pending upload (container, folder, name, staging key, start, instance) and
   commits it before any byte is written;
2. the bytes go to the storage's staging area under that key (never listed, never reindexed);
3. `commit_objects`, inside the transaction that indexes the file, locks the pending rows and
   the folder, moves each staged object to its name and deletes the rows. If anything fails
   before the commit, `abandon` removes the staged objects and rows.

A process that dies mid-way leaves only pending rows and staged objects (or, if it died
between the move and the commit, a moved object no index row accounts for). `sweep` (on start
and every BFF_UPLOAD_SWEEP_SECONDS, in one process at a time: a lease row) removes those once
they are older than BFF_UPLOAD_STAGING_GRACE_SECONDS. Names held only by pending uploads are
free: an upload's 409 asks the index, never the storage.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from tortoise.backends.base.client import BaseDBAsyncClient

from bff.db import transaction
from bff.files import pending_repository, removals, repository, retention
from bff.files.models import PendingUpload
from bff.files.names import RTF_ORIGINAL_PREFIX
from bff.leases import INSTANCE, Periodic, leased
from config.settings import Settings
from storage.base import NotFound, Storage, StorageError

log = logging.getLogger(__name__)

SWEEP_LEASE = "upload-sweep"
# Test-only fault points (BFF_TEST_CRASH_AT, honoured only with BFF_TESTING=true): the process
# exits at once, the way SIGKILL would end it, when an upload reaches the named point.
CRASH_POINTS = (
    "before_pending",  # the form is read up to the file, nothing recorded yet
    "before_write",  # the pending row is committed, no byte written
    "mid_write",  # 9 MiB of a larger file passed to storage (S3: its first part sent)
    "after_write",  # the staged object is whole, the index transaction not begun
    "after_publish",  # moved to its name inside the index transaction, not committed
    "after_commit",  # committed, the response not sent
)
MID_WRITE_BYTES = 9 * 1024 * 1024  # past S3's first 8 MiB part and local disk's 1 MiB buffers
_crash_at: str | None = None
_heartbeat_seconds = 60.0


def configure_staging(settings: Settings) -> None:
    """Read the heartbeat interval (a quarter of the grace period) and the test-only fault
    point (ignored unless BFF_TESTING is on) for this process."""
    global _crash_at, _heartbeat_seconds  # process-wide, like the settings they come from
    _heartbeat_seconds = max(0.1, min(60.0, settings.upload_staging_grace_seconds / 4))
    _crash_at = settings.test_crash_at if settings.testing and settings.test_crash_at else None


def crash_point(name: str) -> None:
    """End the process at once if the tests armed this point."""
    if _crash_at == name:
        os._exit(137)


def watched(chunks: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
    """chunks, ending the process midway through if the tests armed "mid_write"."""
    return _crash_midway(chunks) if _crash_at == "mid_write" else chunks


async def _crash_midway(chunks: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
    passed = 0
    async for chunk in chunks:
        yield chunk
        passed += len(chunk)
        if passed >= MID_WRITE_BYTES:
            await asyncio.sleep(0.2)  # let the storage finish what it has under way
            crash_point("mid_write")


def staging_key() -> str:
    """A fresh, unguessable staging key."""
    return secrets.token_hex(16)


async def begin(container: str, folder: str, names: list[str]) -> list[PendingUpload]:
    """Record the staged objects an upload is about to write (committed before any byte)."""
    crash_point("before_pending")
    rows = await pending_repository.add_pending(
        container, folder, [(name, staging_key()) for name in names], INSTANCE, datetime.now(UTC)
    )
    crash_point("before_write")
    return rows


@contextlib.asynccontextmanager
async def heartbeat(rows: list[PendingUpload]) -> AsyncIterator[None]:
    """While the body runs (the bytes streaming in), keep the pending rows fresh, so the
    sweep never takes an upload that is still alive however long it lasts."""
    ids = [row.id for row in rows]

    async def beat() -> None:
        while True:
            await asyncio.sleep(_heartbeat_seconds)
            try:
                await pending_repository.touch_pending(ids, datetime.now(UTC))
            except Exception:  # a database hiccup: the next beat retries
                log.warning("Could not refresh a pending upload.", exc_info=True)

    task = asyncio.get_running_loop().create_task(beat())
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


async def _once(data: bytes) -> AsyncIterator[bytes]:
    yield data


async def probe(storage: Storage) -> None:
    """Write and remove a small staged object, as every upload writes there first: storage that
    answers reads but refuses writes (a disk remounted read-only, a bucket denying puts) is not
    ready. Raises what storage raises; a probe its process never removed is a stray staged
    object, which the sweep removes."""
    key = f"health-{secrets.token_hex(8)}"
    await storage.write_staged(key, _once(b"ok"), content_type="text/plain")
    await storage.delete_staged(key)


async def abandon(storage: Storage, rows: list[PendingUpload]) -> None:
    """Remove an uncommitted upload's staged objects, then its rows (best effort: the sweep
    removes whatever this cannot). An object its index transaction had moved to its name
    before failing goes the way the sweep removes a crashed one's: unless a row accounts for
    the name (without its pending row, `storage reindex` would list it, never acknowledged)."""
    try:
        for row in rows:
            if row.staging_key in _published:
                await _sweep_one(storage, row.id, SweepReport())
            else:
                await storage.delete_staged(row.staging_key)
        await pending_repository.delete_pending(None, [row.id for row in rows])
    except (StorageError, OSError, ConnectionError):
        log.warning("Could not remove a failed upload's staged objects; the sweep will.")


# This process's uploads that have recorded pending rows and not yet committed or cleaned up
# (their task and rows), for `settle` at shutdown.
_in_flight: dict[object, tuple[asyncio.Task[Any] | None, list[PendingUpload]]] = {}
# Staging keys of this process's uploads whose index transaction has begun moving them to
# their names (until the upload ends): `abandon` then looks at the name, not the staging area.
_published: set[str] = set()
SETTLE_SECONDS = 5.0


@contextlib.asynccontextmanager
async def tracked(rows: list[PendingUpload]) -> AsyncIterator[None]:
    """Around an upload from its pending rows to its commit or `abandon`: `settle` finds it."""
    token = object()
    _in_flight[token] = (asyncio.current_task(), rows)
    try:
        yield
    finally:
        del _in_flight[token]
        _published.difference_update(row.staging_key for row in rows)


async def settle(storage: Storage, seconds: float = SETTLE_SECONDS) -> int:
    """At shutdown, before storage and the database close: end this process's uploads still in
    flight (cut off after the graceful wait) and let each `abandon` its staged objects, its
    unfinished S3 multipart upload and its pending rows; then abandon whatever one could not
    finish within seconds. Returns how many uploads were in flight. (The sweep stays the
    safety net for a process that is killed.)"""
    entries = list(_in_flight.values())
    tasks = {task for task, _ in entries if task is not None and not task.done()}
    for task in tasks:
        if not task.cancelling():  # one being cancelled already is running its clean-up
            task.cancel()
    if tasks:
        await asyncio.wait(tasks, timeout=seconds)
    for _, rows in list(_in_flight.values()):
        await abandon(storage, rows)
    if entries:
        log.info("Stopping: %d upload(s) in flight abandoned, nothing of them kept", len(entries))
    return len(entries)


class UploadExpired(Exception):
    """The upload's pending rows are gone: it was silent for the grace period and swept."""


async def claim(conn: BaseDBAsyncClient, rows: list[PendingUpload], folder_id: int) -> None:
    """Inside the index transaction conn: lock the upload's pending rows (UploadExpired if the
    sweep took them), then its folder (in the sweep's order), so neither runs beside it."""
    claimed = await pending_repository.locked_pending(conn, [row.id for row in rows])
    if len(claimed) != len(rows):
        raise UploadExpired
    await repository.lock_folder(conn, folder_id)


async def publish(conn: BaseDBAsyncClient, storage: Storage, rows: list[PendingUpload]) -> None:
    """Inside the index transaction conn, after `claim`: move each staged object to its name
    and delete the rows, so the move counts only if conn commits."""
    for row in rows:
        _published.add(row.staging_key)  # from here a failure must look at the name too
        await storage.publish_staged(row.staging_key, row.container, row.folder, row.name)
    crash_point("after_publish")
    await pending_repository.delete_pending(conn, [row.id for row in rows])


@dataclass
class SweepReport:
    """What a sweep removed."""

    uploads: int = 0  # pending rows of uploads that never committed
    staged: int = 0  # staged objects (of those rows, or with no row at all)
    moved: int = 0  # objects moved to their name whose index transaction never committed
    leftovers: int = 0  # objects a committed change left to remove (bff/files/removals.py)
    ran: bool = True  # False: another process holds the lease


async def _sweep_one(storage: Storage, pending_id: int, report: SweepReport) -> None:
    async with transaction() as conn:
        row = await pending_repository.claim_stale_pending(conn, pending_id)
        if row is None:
            return
        if await storage.delete_staged(row.staging_key):
            report.staged += 1
        # Locked, so no upload of this folder commits while we decide about the name.
        folder = await pending_repository.locked_folder(conn, row.container, row.folder)
        original_of = (
            row.name.removeprefix(RTF_ORIGINAL_PREFIX)
            if row.name.startswith(RTF_ORIGINAL_PREFIX)
            else None
        )
        indexed = (
            None
            if folder is None
            else await pending_repository.indexed_row_for(conn, folder.id, row.name, original_of)
        )
        if indexed is None:
            # Moved to its name by a transaction that never committed: nobody was told of it.
            with contextlib.suppress(NotFound):
                await storage.delete(row.container, row.folder, row.name)
                report.moved += 1
        elif original_of is None:
            # An overwrite that died between the move and the commit: the old bytes were copied
            # to a version first (`storage reindex` indexes it), so make the row describe the
            # bytes the file now has.
            try:
                info = await storage.stat(row.container, row.folder, row.name)
            except NotFound:
                info = None
            if info is not None and info.size != indexed.size:
                await repository.update_file(
                    conn, indexed, {"size": info.size, "last_modified": info.last_modified}
                )
        await pending_repository.delete_pending(conn, [row.id])
        report.uploads += 1


async def sweep(
    storage: Storage,
    grace_seconds: float,
    lease_seconds: float = 60,
    *,
    now: datetime | None = None,
) -> SweepReport:
    """Remove what uploads silent for the grace period left without committing; one process
    at a time (the others return ran=False). The lease outlives a process that dies holding it
    by lease_seconds at most; a sweep that outlasts it is still safe beside another (each
    pending row is claimed under lock), only duplicated. `now` (default: the clock's) is the
    instant the grace is counted back from: a test names it rather than waiting for it."""
    now = now or datetime.now(UTC)
    report = SweepReport()
    async with leased(SWEEP_LEASE, lease_seconds) as held:
        if not held:
            return SweepReport(ran=False)
        cutoff = now - timedelta(seconds=grace_seconds)
        for pending_id in await pending_repository.stale_pending_ids(cutoff):
            await _sweep_one(storage, pending_id, report)
        # Staged objects no row names: an upload swept while it was still writing.
        known = await pending_repository.pending_staging_keys()
        for info in await storage.list_staged():
            stray = info.name not in known and info.last_modified < cutoff
            if stray and await storage.delete_staged(info.name):
                report.staged += 1
        report.leftovers = await removals.finish_stale(storage, cutoff)
    if report.uploads or report.staged or report.leftovers:
        log.info(
            "Upload sweep: %d unfinished uploads, %d staged objects, %d moved objects, "
            "%d objects changes left removed",
            report.uploads,
            report.staged,
            report.moved,
            report.leftovers,
        )
    return report


def sweeper(storage: Storage, settings: Settings) -> Periodic:
    """`sweep`, then the retention purge of the trash and old versions (bff/files/retention.py,
    its own lease), on start and then every BFF_UPLOAD_SWEEP_SECONDS."""
    grace, interval = settings.upload_staging_grace_seconds, settings.upload_sweep_seconds
    lease = min(600.0, max(1.0, 2 * interval))
    return Periodic(
        interval,
        [
            ("Upload sweep", lambda: sweep(storage, grace, lease)),
            (
                "Retention purge",
                lambda: retention.purge_expired(storage, settings, lease_seconds=lease),
            ),
        ],
        at_start=True,
    )
