"""Named leases: a job that only one process of several may run at a time (the upload sweep,
the audit checkpoint), held by a row in `leases` until it expires or is given back; and
Periodic, the one way such jobs run in the background of a serving process."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta

from tortoise import fields
from tortoise.exceptions import IntegrityError
from tortoise.expressions import Q
from tortoise.models import Model

log = logging.getLogger(__name__)

# This process, as lease holders (and pending uploads) name it.
INSTANCE = f"{socket.gethostname()}:{os.getpid()}"


class Lease(Model):
    """A named job only one process runs at a time: held by holder until expires_at."""

    name = fields.CharField(max_length=64, primary_key=True)
    holder = fields.CharField(max_length=255)
    expires_at = fields.DatetimeField()

    class Meta:
        table = "leases"


async def take_lease(name: str, holder: str, now: datetime, until: datetime) -> bool:
    """Hold lease name until a time if it is free, expired or already ours; whether we do."""
    free = Q(name=name) & (Q(holder=holder) | Q(expires_at__lt=now))
    if await Lease.filter(free).update(holder=holder, expires_at=until):
        return True
    try:
        await Lease.create(name=name, holder=holder, expires_at=until)
    except IntegrityError:
        return False  # another process holds it
    return True


async def release_lease(name: str, holder: str) -> None:
    """Give lease name back if we hold it."""
    await Lease.filter(name=name, holder=holder).delete()


@asynccontextmanager
async def leased(name: str, seconds: float, holder: str = INSTANCE) -> AsyncIterator[bool]:
    """`async with leased(name, seconds) as held`: held is whether this process got the lease
    (run the job only then); it is given back when the block ends. A process that dies holding
    it keeps others out for `seconds` at most."""
    now = datetime.now(UTC)
    held = await take_lease(name, holder, now, now + timedelta(seconds=seconds))
    try:
        yield held
    finally:
        if held:
            await release_lease(name, holder)


Step = tuple[str, Callable[[], Awaitable[object]]]


class Periodic:
    """Background steps run in turn every `interval` seconds (first at start, or one interval
    after it), until stopped. A step that fails is logged under its name and tried again at
    the next run; the others still run. Each step takes its own lease when only one process
    may run it."""

    def __init__(self, interval: float, steps: Sequence[Step], *, at_start: bool) -> None:
        self._interval = interval
        self._steps = tuple(steps)
        self._at_start = at_start
        self._task: asyncio.Task[None] | None = None
        self._idle = asyncio.Event()  # no run in progress, none due at start
        self._idle.set()

    def start(self) -> None:
        """Start in the background."""
        if self._at_start:
            self._idle.clear()
        self._task = asyncio.get_running_loop().create_task(self._run())

    async def settled(self) -> None:
        """Wait until no run is in progress (the one at start included): for whoever must not
        overlap one, such as a test's fixture before it writes the test's data (a run at start
        late on a loaded machine purged what a test had just aged, or took its lease)."""
        await self._idle.wait()

    async def _run(self) -> None:
        if not self._at_start:
            await asyncio.sleep(self._interval)
        while True:
            self._idle.clear()
            for name, step in self._steps:
                try:
                    await step()
                except Exception:  # keep going; the next run retries
                    log.warning("%s failed; retrying later.", name, exc_info=True)
            self._idle.set()
            await asyncio.sleep(self._interval)

    async def stop(self) -> None:
        """Stop (a step in progress is cancelled; what it committed stands)."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        self._idle.set()
