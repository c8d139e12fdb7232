"""The garbage collector of a process that holds thousands of live connections.

CPython 3.11 collects its oldest generation whenever the objects promoted into it since the last
full collection exceed a quarter of those that survived it, and a full collection walks every
object the collector tracks while nothing else in the process runs. A live connection is about
200 such objects (Hypercorn's connection and websocket state, Engine.IO's socket, its queue and
tasks): at 5,000 connections a full collection took 600-900 ms on the 2-core machine. And they
came often: what each connection's writer waits with (its queue's future and coroutine) lasts
from one event to the next, long enough to be promoted, so while events flowed a full
collection ran every ~5 s, and a 5,000-connection storm ran 12 of growing length; each found
almost nothing to free (0-8 objects: requests' cycles die young and the young collections free
them). Every request in flight waited for each (`GET /api/auth/me` p99 0.6-1.4 s during fan-outs
and storms, docs/capacity.md).

So while the app serves: the app's own heap (modules, models, schemas) is frozen out of every
collection once per process, as before; automatic full collections are off (the oldest
generation's threshold out of reach; the young and middle generations' as CPython sets them,
so short-lived cycles go as before); and a full collection runs every FULL_SECONDS, or sooner
once CLOSED_LIMIT long-polling live connections have closed since the last (each leaves objects
in cycles that only a full collection frees), at a moment without a request in progress
(waiting up to FULL_PATIENCE for one). A websocket's end leaves nothing since the live
tuning's patches of engineio, `wait` and `translate_request` (bff/live/patches/: 120-190
objects each at first, some 40 KB; 17 after `wait`: engineio's class made per request, which
held the request's receive) and, since 2026-12-02, `run_then_let_go` and the Wire let go of at
the end (Hypercorn's connection and asyncio's transport end in cycles of their own, 35 objects,
which Engine.IO's socket hid for a ping interval after each close by holding them through its
Wire), so the web app's connections do not count; with BFF_LIVE_TUNING=off (no Wire) every
closed connection counts as a long-polling one does. The thresholds are restored when the last
app of the process stops.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import time

from bff.turns import requests_in_progress

log = logging.getLogger(__name__)

FULL_SECONDS = 300.0  # between two full collections
CLOSED_LIMIT = 1000  # long-polling connections closed: the next full collection sooner
CHECK_SECONDS = 10.0  # how often the schedule looks at them
FULL_PATIENCE = 5.0  # the longest a full collection waits for a moment without requests
QUIET_POLL = 0.01  # how often it looks for that moment
NEVER = 1 << 30  # the oldest generation's threshold: no automatic full collection

_serving = 0  # apps of this process serving now
_closed = 0  # long-polling connections closed since the last full collection
_saved: tuple[int, int, int] | None = None  # the thresholds before the first of them


def freeze_heap() -> None:
    """Once per process, after the first start: move everything loaded so far (modules, models,
    schemas: about 100,000 objects) out of the garbage collector's sight for good."""
    if gc.get_freeze_count() == 0:
        gc.collect()
        gc.freeze()


async def _quiet_moment(patience: float) -> None:
    """Return once no request is in progress, or after `patience` seconds."""
    deadline = time.monotonic() + patience
    while requests_in_progress() and time.monotonic() < deadline:  # noqa: ASYNC110 - once in minutes
        await asyncio.sleep(QUIET_POLL)


def connection_closed() -> None:
    """A live connection of this process that leaves objects in cycles closed (long-polling,
    bff/live/server.py)."""
    global _closed
    _closed += 1


def collect_fully() -> int:
    """One full collection now; how many unreachable objects it found."""
    global _closed
    started = time.perf_counter()
    _closed = 0
    found = gc.collect()
    log.debug(
        "Full garbage collection: %d objects freed in %.0f ms",
        found,
        (time.perf_counter() - started) * 1000,
    )
    return found


class Collector:
    """This app's share of the process's collection policy: `start` once it serves, `stop`
    when it stops."""

    def __init__(self) -> None:
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        global _serving, _saved
        freeze_heap()
        if _serving == 0:
            _saved = gc.get_threshold()
            young, middle, _ = _saved
            gc.set_threshold(young, middle, NEVER)
        _serving += 1
        self._task = asyncio.get_running_loop().create_task(self._run())

    async def _run(self) -> None:
        last = time.monotonic()
        while True:
            await asyncio.sleep(min(CHECK_SECONDS, FULL_SECONDS))
            if _closed < CLOSED_LIMIT and time.monotonic() - last < FULL_SECONDS:
                continue
            await _quiet_moment(FULL_PATIENCE)
            collect_fully()
            last = time.monotonic()

    async def stop(self) -> None:
        global _serving, _saved
        if self._task is None:
            return
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task
        self._task = None
        _serving -= 1
        if _serving == 0 and _saved is not None:
            gc.set_threshold(*_saved)
            _saved = None
