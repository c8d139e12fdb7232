"""Requests before the file jobs' work on the embedded database.

On SQLite a process has one connection, and Tortoise runs one transaction (or statement) on it
at a time, in the order they were asked for. A file job's transaction (a document's text
written into the index: 5 ms at the median, 15 ms at the worst) that starts just before a
request's makes the request wait for it, and several pieces of background work queued ahead of
a request make it wait for each: while the text backlog drained, an upload's transactions
waited up to 37 ms at the 99th percentile where they waited 2-8 ms otherwise
(bench/upload_backlog_bench.py, docs/search.md).

So each piece of the file jobs' work on the database (bff/jobs/: a claim, a result, the
backlog's count) asks for its turn first (`async with background_turn()`): one piece at a
time, once no request has begun or ended for QUIET seconds and none begun in the last
LONG_REQUEST seconds is still in progress (`RequestInProgress`, around every request the app
handles), and in any case once BACKGROUND_PATIENCE seconds have passed since it asked, so that
a steady stream of requests slows the jobs down but never stops them. A slow upload or
download stops holding them back after its first LONG_REQUEST seconds. A request never waits
at this gate; at worst it waits for the one piece already under way.

Only the file jobs are gated: the upload sweeper, the audit checkpoints and the batched audit
writer are rare or part of the requests' own work. On PostgreSQL each gets a connection of
its own from the pool, so the turn is given at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import weakref
from collections.abc import AsyncIterator
from contextvars import ContextVar

from bff.db import dialect
from bff.waits import wait_set

# The longest a piece of the jobs' work waits, from when it asks, for a moment without
# requests: under a steady stream of them file jobs still advance, about one a second (a job
# is two pieces: its claim and its result).
BACKGROUND_PATIENCE = 0.5
# How long no request must have begun or ended before a piece starts: one client's requests one
# after another leave gaps of a millisecond or two, and a piece started in one would hold up the
# next request. (Measured: with no quiet asked for, uploads' p99 was 1.38x while the backlog
# drained; with 5 or 20 ms, 0.90-1.08x, within the machine's noise.)
QUIET = 0.01
# A request in progress longer than this (a large upload on a slow link, a long download) is
# no longer waited for: its database work is at its start and end, not while its bytes travel.
LONG_REQUEST = 1.0


class _Gate:
    """One event loop's requests in progress and the turn of the jobs' work."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.started: dict[int, float] = {}  # requests in progress: when each began, in order
        self.count = 0  # requests begun so far (each one's key)
        self.last_change = float("-inf")  # when a request last began or ended
        self.ended = asyncio.Event()  # set when a request ends (cleared by the waiting piece)
        self.turn = asyncio.Lock()

    def wait_needed(self) -> float:
        """Seconds until a piece may start, as things stand now (0 or less: at once)."""
        now = self.loop.time()
        needed = QUIET - (now - self.last_change)
        if self.started:
            newest = next(reversed(self.started.values()))
            needed = max(needed, newest + LONG_REQUEST - now)
        return needed


_GATES: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Gate] = weakref.WeakKeyDictionary()
_IN_TURN: ContextVar[bool] = ContextVar("bff_in_background_turn", default=False)


def _gate() -> _Gate:
    loop = asyncio.get_running_loop()
    gate = _GATES.get(loop)
    if gate is None:
        gate = _GATES[loop] = _Gate(loop)
    return gate


class RequestInProgress:
    """`with RequestInProgress():` around a request: the jobs' work waits while it is in
    progress (up to BACKGROUND_PATIENCE, and for its first LONG_REQUEST seconds only). A
    class rather than a generator: it runs twice on every request."""

    __slots__ = ("_gate", "_key")

    def __enter__(self) -> None:
        gate = self._gate = _gate()
        gate.count += 1
        self._key = gate.count
        gate.started[self._key] = gate.last_change = gate.loop.time()

    def __exit__(self, *exc_info: object) -> None:
        gate = self._gate
        del gate.started[self._key]
        gate.last_change = gate.loop.time()
        gate.ended.set()


def requests_in_progress() -> int:
    """How many requests this process is handling now."""
    return len(_gate().started)


@contextlib.asynccontextmanager
async def background_turn() -> AsyncIterator[None]:
    """Around one piece of the file jobs' work on the database (a transaction, or a few
    statements): on SQLite it starts once requests leave a quiet moment, or BACKGROUND_PATIENCE
    seconds after it asked, and no other piece runs meanwhile. A piece inside a piece (a kind's
    store calling something gated) goes at once."""
    if _IN_TURN.get() or dialect() != "sqlite":
        yield
        return
    gate = _gate()
    deadline = gate.loop.time() + BACKGROUND_PATIENCE
    async with gate.turn:
        while (left := deadline - gate.loop.time()) > 0 and (needed := gate.wait_needed()) > 0:
            gate.ended.clear()
            await wait_set(gate.ended, min(needed, left))
        token = _IN_TURN.set(True)
        try:
            yield
        finally:
            _IN_TURN.reset(token)
