"""Waiting for an event with a time limit, in a way a cancellation is never lost.

`asyncio.wait_for(event.wait(), seconds)` on Python 3.11 returns normally when the task is
cancelled at the moment the event is set (the cancellation is swallowed: fixed in 3.12), so a
background loop written with it can outlive its `cancel()` and hold the app's stop.
`asyncio.timeout` does not lose it.

And work that holds a turn of the CPU (a live connection's set-up: bff/live/transport.py's
HandshakeGate) steps aside while it waits for another server (`stepping_aside`), so the turn
covers the CPU only.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
from collections.abc import AsyncIterator
from typing import Protocol


class CpuTurn(Protocol):
    """A turn of the CPU that a piece of work holds (bff/live/turns.py's `Turn`)."""

    def step_aside(self) -> bool: ...

    async def come_back(self) -> None: ...


# The turn the work of this context holds, if any (set for a live connection's set-up).
cpu_turn: contextvars.ContextVar[CpuTurn | None] = contextvars.ContextVar("cpu_turn", default=None)


@contextlib.asynccontextmanager
async def stepping_aside() -> AsyncIterator[None]:
    """Around a wait for another server (the database): the CPU turn this context holds goes
    to the next in line meanwhile, and is taken back afterwards ahead of the others waiting,
    unless something ended it meanwhile (not on an error either: the work is ending). Without a
    turn held, nothing happens."""
    turn = cpu_turn.get()
    if turn is None or not turn.step_aside():
        yield
        return
    yield
    await turn.come_back()


async def wait_set(event: asyncio.Event, seconds: float) -> bool:
    """Wait until event is set or seconds pass: whether it was set. A cancellation raises."""
    try:
        async with asyncio.timeout(seconds):
            await event.wait()
    except TimeoutError:
        return False
    return True
