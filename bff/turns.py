"""Requests before background work on the embedded database.

On SQLite a process has one connection, and Tortoise runs one transaction (or statement) on it
at a time, in the order they were asked for. A file job's transaction (a document's text
written into the index: 5 ms at the median, 15 ms at the worst) that starts just before a
request's makes the request wait for it, and several pieces of background work queued ahead of
a request make it wait for each: while the text backlog drained, an upload's transactions
waited up to 37 ms at the 99th percentile where they waited 2-8 ms otherwise
(bench/upload_backlog_bench.py, docs/search.md).

So background work on the database asks for its turn first (`async with background_turn()`):
one piece at a time, and only once no request is in progress (`request_in_progress`, around
every request the app handles), or after BACKGROUND_PATIENCE seconds of waiting in any case,
so that a steady stream of requests slows the background down but never stops it. A request
never waits at this gate; at worst it waits for the one piece of background work already
under way.

On PostgreSQL each gets a connection of its own from the pool, so the turn is given at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import weakref
from collections.abc import AsyncIterator, Iterator

from bff.db import dialect
from bff.waits import wait_set

# The longest a piece of background work waits for a moment without requests: under a steady
# stream of them (or during one long upload), file jobs still make progress, about one job a
# second (a job is two pieces: its claim and its result).
BACKGROUND_PATIENCE = 0.5
# How long no request must have been in progress before background work starts: one client's
# requests one after another leave gaps of a millisecond or two between them, and a piece of
# background work started in one would hold up the next request. (Measured: with no quiet
# asked for, uploads' p99 was 1.38x while the backlog drained; with 5 or 20 ms, 0.90-1.08x,
# within the machine's noise.)
QUIET = 0.01


class _Gate:
    """One event loop's count of requests in progress and its turn for background work."""

    def __init__(self) -> None:
        self.requests = 0
        self.quiet = asyncio.Event()  # set while no request is in progress
        self.quiet.set()
        self.quiet_since = float("-inf")  # loop time the last request ended
        self.turn = asyncio.Lock()


_GATES: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Gate] = weakref.WeakKeyDictionary()


def _gate() -> _Gate:
    loop = asyncio.get_running_loop()
    gate = _GATES.get(loop)
    if gate is None:
        gate = _GATES[loop] = _Gate()
    return gate


@contextlib.contextmanager
def request_in_progress() -> Iterator[None]:
    """Around a request: background work waits for its end (up to BACKGROUND_PATIENCE)."""
    gate = _gate()
    gate.requests += 1
    gate.quiet.clear()
    try:
        yield
    finally:
        gate.requests -= 1
        if gate.requests == 0:
            gate.quiet_since = asyncio.get_running_loop().time()
            gate.quiet.set()


def requests_in_progress() -> int:
    """How many requests this process is handling now."""
    return _gate().requests


async def _quiet_moment(gate: _Gate, seconds: float) -> None:
    """Return once no request has been in progress for QUIET seconds, or after `seconds`."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while (left := deadline - loop.time()) > 0:
        if gate.requests:
            if not await wait_set(gate.quiet, left):
                return
            continue
        still = QUIET - (loop.time() - gate.quiet_since)
        if still <= 0:
            return
        await asyncio.sleep(min(still, left))


@contextlib.asynccontextmanager
async def background_turn() -> AsyncIterator[None]:
    """Around one piece of background work on the database (a transaction, or a few
    statements): on SQLite it starts once no request has been in progress for QUIET seconds,
    or after waiting BACKGROUND_PATIENCE seconds, and no other background piece runs
    meanwhile."""
    if dialect() != "sqlite":
        yield
        return
    gate = _gate()
    async with gate.turn:
        await _quiet_moment(gate, BACKGROUND_PATIENCE)
        yield
