"""JobRunner: a serving process's loop that claims and runs due file jobs in the background
(bff/jobs/service.py), BFF_JOB_WORKERS at once. Woken when a transaction of this process that
recorded a job commits, and looking every BFF_JOB_POLL_SECONDS otherwise (jobs other processes
recorded, retries coming due, claims of dead processes expiring). Never in a request's path:
an upload's answer does not wait for its text."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from pathlib import Path

from bff.jobs import service
from bff.jobs.repository import Claimed
from bff.leases import INSTANCE
from bff.turns import background_turn
from bff.waits import wait_set
from bff.workers import WorkerPool
from config.settings import Settings
from storage.base import Storage

log = logging.getLogger(__name__)

# The backlog gauge is counted again at most this often while jobs run (and each time the
# runner finds itself idle): a count of every unfinished job after each job, or each upload
# that wakes the runner, would be one more piece of work on the database for requests to wait
# behind (bff/turns.py).
BACKLOG_SECONDS = 5.0


class JobRunner:
    """The background jobs of one serving process."""

    def __init__(self, storage: Storage, settings: Settings, holder: str = INSTANCE) -> None:
        self._storage = storage
        self._settings = settings
        self._holder = holder
        self._width = settings.job_workers
        self._pool: WorkerPool | None = None
        self._wake: asyncio.Event | None = None
        self._task: asyncio.Task[None] | None = None
        self._running: dict[asyncio.Task[str], Claimed] = {}
        self._root: Path | None = None
        self._counted_at = float("-inf")
        self._ended_count = 0
        self._next_end: asyncio.Event | None = None

    def start(self) -> None:
        """Start in the background (nothing when BFF_JOB_WORKERS is 0)."""
        if self._width == 0:
            return
        self._wake = asyncio.Event()
        self._pool = service.job_pool(self._settings)
        self._root = service.work_dir(self._settings)
        self._task = asyncio.get_running_loop().create_task(self._loop())

    async def wake(self) -> None:
        """Look for due jobs now (a transaction recorded some)."""
        if self._wake is not None:
            self._wake.set()

    @property
    def running(self) -> int:
        """How many jobs this process runs now."""
        return len(self._running)

    # Whoever waits for a job's outcome (a test) checks it after each job this runner ends,
    # instead of polling by time: `n = runner.ended`, read the job, `await runner.ended_after(n)`.

    @property
    def ended(self) -> int:
        """How many jobs this runner has ended (each one's outcome recorded first)."""
        return self._ended_count

    async def ended_after(self, count: int) -> None:
        """Return once more than `count` jobs have ended."""
        while self._ended_count <= count:
            if self._next_end is None:
                self._next_end = asyncio.Event()
            await self._next_end.wait()

    def runs(self, job_id: int) -> bool:
        """Whether this process is running job `job_id` now (its outcome may be recorded while
        its run still ends)."""
        return any(job.id == job_id for job in self._running.values())

    async def _loop(self) -> None:
        assert self._wake is not None
        while True:
            self._wake.clear()  # before claiming: a wake during the claim is not lost
            claimed: list[Claimed] = []
            free = self._width - len(self._running)
            try:
                if free > 0:
                    claimed = await service.claim_due(free, self._holder, self._settings)
                await self._count_backlog(busy=bool(claimed or self._running))
            except Exception:
                log.warning("Claiming file jobs failed; trying again later.", exc_info=True)
            for job in claimed:
                self._launch(job)
            if claimed and len(claimed) == free:
                continue  # every place taken: there may be more due
            await wait_set(self._wake, self._settings.job_poll_seconds)

    async def _count_backlog(self, *, busy: bool) -> None:
        now = asyncio.get_running_loop().time()
        if busy and now - self._counted_at < BACKLOG_SECONDS:
            return
        self._counted_at = now
        async with background_turn():
            await service.update_backlog()

    def _launch(self, job: Claimed) -> None:
        assert self._pool is not None and self._root is not None
        work = service.run_claimed(job, self._storage, self._pool, self._settings, self._root)
        task = asyncio.get_running_loop().create_task(work)
        self._running[task] = job
        task.add_done_callback(self._ended)

    def _ended(self, task: asyncio.Task[str]) -> None:
        self._running.pop(task, None)
        self._ended_count += 1
        if self._next_end is not None:
            self._next_end.set()
            self._next_end = None
        if not task.cancelled() and (exc := task.exception()) is not None:
            # Recording the outcome failed (the database went away): the claim expires and
            # another attempt follows.
            log.warning("A file job ended unrecorded: %s", type(exc).__name__)
        if self._wake is not None:
            self._wake.set()  # a place is free

    async def stop(self) -> None:
        """Stop: jobs in progress are cancelled (their workers killed) and given back, due at
        once for another process or the next start."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        unfinished = list(self._running.values())
        for task in list(self._running):
            task.cancel()
        await asyncio.gather(*self._running, return_exceptions=True)
        if unfinished:
            try:
                await service.release(unfinished)
            except Exception:  # noqa: BLE001 - their claims expire instead
                log.warning("Could not give back %d file job(s).", len(unfinished))
        if self._pool is not None:
            await self._pool.close()
