"""Durable background work on files, one job per file and kind of work for its current content
(text for search now; previews next): recorded in the transaction that changes the file,
claimed by one process at a time, run in a worker pool of its own, retried with back-off, and
after BFF_JOB_ATTEMPTS failures failed for good with a reason a person can read.

A kind of work is one registration (`register(Kind(...))` in a module listed in KIND_MODULES):
which files it wants, the function that does the work in a worker process (given a private
copy of the file's content), and the coroutine that stores its result inside the transaction
that first checks the file still has the content the job was for (else the result is dropped).

- Recorded: `file_changed(conn, row)` in every transaction that gives a file a new current
  content (an upload or overwrite, a version restore, a trash restore, `storage reindex`); the
  job row of each kind is made pending for that version (a claim on the old content can no
  longer finish). Deleting the file removes its jobs and results with its row (cascade).
- Claimed: `claim_due`, each job by one process however many run (bff/jobs/repository.py),
  for a time (BFF_JOB_SECONDS twice over, plus a minute); a process that dies holding one
  leaves it to be claimed again when that time is up.
- Run: `run_claimed` copies the content out of storage, runs the kind's work in the pool
  (time and memory limits: the job pool, bff/workers.py), then stores the result or the failure.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import logging
import os
import secrets
import shutil
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Collection
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Literal

from tortoise.backends.base.client import BaseDBAsyncClient

from bff import metrics
from bff.db import on_commit, transaction
from bff.files.models import StoredFile
from bff.jobs import repository
from bff.jobs.models import DONE, FAILED, PENDING, RUNNING
from bff.jobs.repository import Claimed
from bff.jobs.work import FileFacts as FileFacts  # re-exported: where kinds look for it
from bff.jobs.work import Unavailable, Unreadable
from bff.services import running_services
from bff.turns import background_turn
from bff.workers import WorkerFailed, WorkerOutOfMemory, WorkerPool, WorkerTimeout, process_alive
from config.settings import Settings
from storage.base import NotFound, Storage

log = logging.getLogger(__name__)

# The modules that register a kind of work when imported (one line each).
KIND_MODULES = ("bff.search.jobs", "bff.files.thumbnails")

LONGEST_PAUSE = timedelta(hours=6)  # between two attempts of a job, however many failed
INTERRUPTED = (
    "Reading this file was interrupted too many times (the server stopped or restarted each time)."
)
CONTENT_MISSING = "The file's content is missing from storage."
READER_STOPPED = (
    "This file could not be read: the reader stopped on it. It may be damaged, or too large "
    "to read within the memory limit."
)
OUT_OF_MEMORY = "This file is too large to read within the memory limit."
COULD_NOT_READ = "This file could not be read."


def too_slow(seconds: float) -> str:
    """The reason of a job that ran out of time."""
    return f"Reading this file took longer than the limit of {seconds:g} seconds."


def too_large(max_mb: int) -> str:
    """The reason of a job on a file over BFF_JOB_MAX_MB."""
    return f"This file is larger than {max_mb}MB, the largest read in the background."


@dataclass(frozen=True)
class Kind:
    """One kind of work on files.

    - wants(row): whether a file gets this job (decided each time it gets a new content);
    - work(path, facts, options): in a worker process, the result from a private copy of the
      content at path (a module-level function: it is pickled by reference). Raise
      `Unreadable(reason)` for a file that can never be read (the job fails at once);
    - store(conn, job, result, seconds): inside the transaction that checked the file still has
      the job's content, keep the result (and publish what it announces);
    - prepare(job, result): before that transaction, outside any: write what the result holds
      in bounded pieces, each inside `held_turn(job)` (the search text of a long document);
      what it writes must be harmless until store commits (searched only while the file's
      current content is the job's);
    - keep(storage, job, result): before that transaction, outside any: put what the result
      holds in storage (a thumbnail, bff/files/thumbnails.py). A storage write inside the
      transaction held SQLite's one connection for its whole length (seconds on a slow S3), so
      what keep writes is garbage until store's transaction commits a row naming it: keep
      records it for removal first (in a transaction of its own) and store forgets that record,
      so a job superseded meanwhile (`drop`) or a process that dies in between (the sweep)
      leaves nothing behind;
    - drop(storage, job): after keep, when the job was superseded before store committed:
      remove what keep wrote (best effort; its recorded removal is the sweep's otherwise);
    - failed(conn, job, reason): likewise when the job fails for good;
    - forget(conn, file_id, follows): drop the result of an earlier content, in the transaction
      that records the new one (follows: a job for the new content is recorded and will
      replace it) or that finds the file no longer wanted (follows False);
    - options(settings): the picklable options work is given; worker_modules: what the pool's
      processes import before their first job.
    """

    name: str
    wants: Callable[[StoredFile], bool]
    work: Callable[[str, FileFacts, Any], Any]
    store: Callable[[BaseDBAsyncClient, Claimed, Any, float], Awaitable[None]]
    prepare: Callable[[Claimed, Any], Awaitable[None]] | None = None
    keep: Callable[[Storage, Claimed, Any], Awaitable[None]] | None = None
    drop: Callable[[Storage, Claimed], Awaitable[None]] | None = None
    failed: Callable[[BaseDBAsyncClient, Claimed, str], Awaitable[None]] | None = None
    forget: Callable[[BaseDBAsyncClient, int, bool], Awaitable[None]] | None = None
    options: Callable[[Settings], Any] = field(default=lambda settings: None)
    worker_modules: tuple[str, ...] = ()


_KINDS: dict[str, Kind] = {}


def register(kind: Kind) -> None:
    """Make a kind of work known (its module is listed in KIND_MODULES)."""
    _KINDS[kind.name] = kind


def kinds() -> dict[str, Kind]:
    """Every registered kind of work, by name."""
    for module in KIND_MODULES:
        importlib.import_module(module)
    return _KINDS


def worker_modules() -> tuple[str, ...]:
    """What a job pool's processes import before their first job."""
    return ("bff.jobs.work", *(m for k in kinds().values() for m in k.worker_modules))


def job_pool(settings: Settings) -> WorkerPool:
    """The worker processes jobs run in: BFF_JOB_WORKERS at once, each killed after
    BFF_JOB_SECONDS, each limited to BFF_JOB_MEMORY_MB (a pool of their own: conversions of
    uploads never wait behind them)."""
    return WorkerPool(
        max(1, settings.job_workers),
        0,
        settings.job_seconds,
        preload=worker_modules(),
        memory=settings.job_memory_mb * 1024 * 1024,
    )


# Recording.


async def file_changed(
    conn: BaseDBAsyncClient, row: StoredFile, only: Collection[str] | None = None
) -> None:
    """Inside the transaction that gives a file its current content (row: its index row, saved):
    record each kind's job (or `only` these kinds') for that content, or forget the kinds that
    no longer want the file; a running process is told once the transaction commits."""
    now = datetime.now(UTC)
    recorded = False
    for kind in _of(only):
        follows = kind.wants(row)
        if follows:
            await repository.put(conn, row.id, kind.name, row.version_id, now)
            recorded = True
        elif not await repository.drop(conn, row.id, kind.name):
            continue
        if kind.forget is not None:
            await kind.forget(conn, row.id, follows)
    services = running_services()
    if recorded and services is not None and services.jobs is not None:
        on_commit(services.jobs.wake)


def _of(only: Collection[str] | None) -> list[Kind]:
    return [kind for name, kind in kinds().items() if only is None or name in only]


async def record_all(file_ids: list[int], only: Collection[str] | None = None) -> int:
    """Record every kind's job (or `only` these kinds') again for these files' current contents
    (`search reindex`: the text kind), each file in a transaction of its own; how many jobs
    were recorded."""
    recorded = 0
    for file_id in file_ids:
        async with transaction() as conn:
            row = await StoredFile.filter(id=file_id).using_db(conn).select_for_update().first()
            if row is None:
                continue  # deleted meanwhile
            await file_changed(conn, row, only)
            recorded += sum(1 for kind in _of(only) if kind.wants(row))
    return recorded


# Reading the state.

# What the API says of a job's state.
Shown = Literal["pending", "ready", "failed"]
SHOWN_STATE: dict[str, Shown] = {
    PENDING: "pending",
    RUNNING: "pending",
    DONE: "ready",
    FAILED: "failed",
}


def shown(state: tuple[str, str | None] | None) -> tuple[Shown | None, str | None]:
    """(state, problem) as the API shows a job: pending, ready or failed (with its reason), or
    (None, None) for a file without such a job."""
    if state is None:
        return None, None
    return SHOWN_STATE[state[0]], state[1] if state[0] == FAILED else None


# Claiming and running.


def claim_seconds(settings: Settings) -> float:
    """How long a claim lasts: past the job's own time limit, with room to copy its content."""
    return 2 * settings.job_seconds + 60


async def claim_due(limit: int, holder: str, settings: Settings) -> list[Claimed]:
    """Claim up to limit due jobs for this process, with their files."""
    now = datetime.now(UTC)
    token = secrets.token_hex(16)
    until = now + timedelta(seconds=claim_seconds(settings))
    async with background_turn():
        ids = await repository.claim(list(kinds()), limit, token, holder, now, until)
        return await repository.claimed(token) if ids else []


async def release(jobs: list[Claimed]) -> None:
    """Give back claimed jobs this process will not finish (it is stopping)."""
    now = datetime.now(UTC)
    for token in {job.claim for job in jobs}:
        await repository.release(token, now)


async def update_backlog() -> None:
    """Set the backlog gauge from the database (every kind, 0 when it has none)."""
    backlog = await repository.backlog()
    metrics.job_backlog({name: backlog.get(name, 0) for name in kinds()})


def work_dir(settings: Settings) -> Path:
    """Where job contents are copied (var/jobs/), with what dead processes left removed."""
    root = settings.var_dir / "jobs"
    root.mkdir(mode=0o700, parents=True, exist_ok=True)
    for leftover in root.iterdir():
        pid = leftover.name.partition("-")[0]
        if pid.isdigit() and not process_alive(int(pid)):
            shutil.rmtree(leftover, ignore_errors=True)
    return root


@asynccontextmanager
async def work_folder(root: Path) -> AsyncIterator[Path]:
    """A new folder of this process's own in `root` (`work_dir`'s), removed with what is in it
    after the block, however it ends: made on the loop (one mkdir: made in a thread, a
    cancellation meanwhile left it behind for the life of the process), removed in a thread
    that a cancellation does not call off (shielded: a removal still waiting for a thread was
    dropped by a second cancellation), or here when no thread can be had."""
    folder = Path(tempfile.mkdtemp(prefix=f"{os.getpid()}-", dir=root))
    try:
        yield folder
    finally:
        try:
            await asyncio.shield(asyncio.to_thread(shutil.rmtree, folder, True))
        except RuntimeError:  # the loop's executor shut down
            shutil.rmtree(folder, True)
            raise


async def _copy_content(storage: Storage, job: Claimed, target: Path) -> None:
    stream = await storage.open(job.container, job.folder, job.name)
    with target.open("wb") as out:
        async with stream:
            async for chunk in stream:
                await asyncio.to_thread(out.write, chunk)


async def run_claimed(
    job: Claimed, storage: Storage, pool: WorkerPool, settings: Settings, root: Path
) -> str:
    """Do one claimed job and record how it ended: "done", "failed" (for good), "retry" or
    "superseded" (the file changed meanwhile: the result was dropped)."""
    kind = kinds().get(job.kind)
    if kind is None:  # a kind this version no longer has
        return await _failed(job, None, COULD_NOT_READ, settings, final=True)
    if job.attempts > settings.job_attempts:  # claimed again after each of its processes died
        return await _failed(job, kind, INTERRUPTED, settings, final=True)
    if job.size > settings.job_max_mb * 1024 * 1024:
        return await _failed(job, kind, too_large(settings.job_max_mb), settings, final=True)
    started = time.monotonic()
    facts = FileFacts(job.name, job.content_type, job.size)
    final = False
    try:
        async with work_folder(root) as folder:
            content = folder / "content"
            await _copy_content(storage, job, content)
            options = kind.options(settings)
            result = await pool.run(kind.work, str(content), facts, options)
    except Unreadable as exc:
        reason, final = str(exc), True
    except WorkerOutOfMemory:
        reason, final = OUT_OF_MEMORY, True
    except Unavailable as exc:
        reason = str(exc)
    except WorkerTimeout:
        reason = too_slow(settings.job_seconds)
    except WorkerFailed:
        reason = READER_STOPPED
    except NotFound:
        reason = CONTENT_MISSING
    except Exception as exc:  # noqa: BLE001 - any other failure is tried again, then reported
        log.warning("Job %d (%s) failed: %s", job.id, job.kind, type(exc).__name__)
        reason = COULD_NOT_READ
    else:
        return await _done(job, kind, result, time.monotonic() - started, storage)
    return await _failed(job, kind, reason, settings, final=final)


class Superseded(Exception):
    """The job's claim no longer holds: its file changed or went, or another process took it."""


@asynccontextmanager
async def held_turn(job: Claimed) -> AsyncIterator[BaseDBAsyncClient]:
    """One piece of a job's database work: in a background turn (bff/turns.py) and a
    transaction of its own that first locks the file and the job and checks the job's claim
    still holds (else Superseded, and nothing is written)."""
    async with background_turn(), transaction() as conn:
        if not await repository.held(conn, job.id, job.file_id, job.claim):
            raise Superseded
        yield conn


async def _done(job: Claimed, kind: Kind, result: Any, seconds: float, storage: Storage) -> str:
    kept = False
    try:
        if kind.prepare is not None:
            await kind.prepare(job, result)
        if kind.keep is not None:
            await kind.keep(storage, job, result)  # outside any transaction (Kind.keep)
            kept = True
        async with held_turn(job) as conn:
            await kind.store(conn, job, result, seconds)
            await repository.finish(conn, job.id, job.claim, DONE, datetime.now(UTC))
    except Superseded:
        if kept and kind.drop is not None:
            await kind.drop(storage, job)
        return "superseded"
    metrics.job_finished(job.kind, "done")
    return "done"


def _pause(settings: Settings, attempts: int) -> timedelta:
    """The wait before the next attempt after `attempts` failed ones (doubling each time)."""
    seconds = settings.job_retry_seconds * 2 ** min(max(attempts - 1, 0), 30)
    return min(timedelta(seconds=seconds), LONGEST_PAUSE)


async def _failed(
    job: Claimed, kind: Kind | None, reason: str, settings: Settings, *, final: bool
) -> str:
    final = final or job.attempts >= settings.job_attempts
    now = datetime.now(UTC)
    try:
        async with held_turn(job) as conn:
            if final:
                await repository.finish(conn, job.id, job.claim, FAILED, now, reason=reason)
                if kind is not None and kind.failed is not None:
                    await kind.failed(conn, job, reason)
            else:
                later = now + _pause(settings, job.attempts)
                await repository.finish(
                    conn, job.id, job.claim, PENDING, now, reason=reason, next_attempt_at=later
                )
    except Superseded:
        return "superseded"
    if final:
        metrics.job_finished(job.kind, "failed")
        return "failed"
    metrics.job_finished(job.kind, "retry")
    return "retry"


async def run_due(
    storage: Storage,
    settings: Settings,
    pool: WorkerPool,
    holder: str,
    *,
    until_none: Callable[[], Awaitable[bool]] | None = None,
    progress: Callable[[], Awaitable[None]] | None = None,
) -> None:
    """Run due jobs here, BFF_JOB_WORKERS at once (at least one), until none is due and
    until_none() (if given) says nothing is left to wait for; progress() after each job. The
    command line's way (`search reindex`); a serving process runs them in its JobRunner."""
    root = work_dir(settings)
    width = max(1, settings.job_workers)
    while True:
        claimed = await claim_due(width, holder, settings)
        if claimed:
            try:
                await asyncio.gather(
                    *(run_claimed(j, storage, pool, settings, root) for j in claimed)
                )
            except BaseException:
                with contextlib.suppress(Exception):
                    await asyncio.shield(release(claimed))
                raise
            if progress is not None:
                await progress()
            continue
        if until_none is None or not await until_none():
            return
        await asyncio.sleep(min(1.0, settings.job_poll_seconds))
