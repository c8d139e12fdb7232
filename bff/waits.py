"""Waiting for an event with a time limit, in a way a cancellation is never lost.

`asyncio.wait_for(event.wait(), seconds)` on Python 3.11 returns normally when the task is
cancelled at the moment the event is set (the cancellation is swallowed: fixed in 3.12), so a
background loop written with it can outlive its `cancel()` and hold the app's stop.
`asyncio.timeout` does not lose it.
"""

from __future__ import annotations

import asyncio


async def wait_set(event: asyncio.Event, seconds: float) -> bool:
    """Wait until event is set or seconds pass: whether it was set. A cancellation raises."""
    try:
        async with asyncio.timeout(seconds):
            await event.wait()
    except TimeoutError:
        return False
    return True
