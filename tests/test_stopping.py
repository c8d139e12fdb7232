"""The app's stop (bff/shutdown.py stop_in_order): every step runs in turn, a step that fails or
hangs is logged by name and the database still closes; and a background loop's wait
(bff/waits.py) never swallows the cancellation that stops it (Python 3.11's wait_for does when
the event is set at that moment: the job runner could outlive the stop); and a worker signalled
itself passes SIGTERM on to its master only when the master was not signalled too."""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import os
import signal
import sys

import pytest

from bff.shutdown import pass_on_sigterm, stop_in_order
from bff.waits import wait_set


async def test_a_step_that_hangs_or_fails_does_not_hold_the_rest(
    caplog: pytest.LogCaptureFixture,
) -> None:
    ran: list[str] = []

    async def hangs() -> None:
        ran.append("hangs")
        await asyncio.Event().wait()

    async def fails() -> None:
        ran.append("fails")
        raise ConnectionError("database away")

    async def closes() -> None:
        ran.append("closes")

    await stop_in_order(
        [("signing the audit head", hangs), ("flushing", fails), ("closing", closes)],
        seconds=0.2,
    )
    assert ran == ["hangs", "fails", "closes"]
    assert "Stopping: signing the audit head did not finish within 0.2 s; going on" in caplog.text
    assert "Stopping: flushing failed; going on" in caplog.text


async def test_wait_set_says_whether_the_event_came() -> None:
    event = asyncio.Event()
    assert await wait_set(event, 0.01) is False
    event.set()
    assert await wait_set(event, 5) is True


async def test_a_cancellation_at_the_moment_the_event_is_set_still_stops_the_loop() -> None:
    event = asyncio.Event()
    rounds = 0

    async def loop() -> None:
        nonlocal rounds
        while True:
            rounds += 1
            event.clear()
            await wait_set(event, 5)

    task = asyncio.get_running_loop().create_task(loop())
    async with asyncio.timeout(5):
        while rounds == 0:  # noqa: ASYNC110 - the loop's own count: it is now waiting
            await asyncio.sleep(0)
    event.set()  # the waiter wakes on the next turn of the loop...
    task.cancel()  # ...and is cancelled in the same turn (asyncio.wait_for went on here)
    with contextlib.suppress(asyncio.CancelledError):
        await asyncio.wait_for(task, 2)
    assert task.cancelled()
    assert rounds == 1


# The master's stand-in: says each SIGTERM and SIGWINCH it gets, and ends on SIGTERM as a
# process without a handler does (killed by it). SIGWINCH is the test's marker: a higher
# number than SIGTERM, so a SIGTERM sent before it is handled (and said) first.
STAND_IN = """
import os, signal, sys
def term(*_):
    print("SIGTERM", flush=True)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    os.kill(os.getpid(), signal.SIGTERM)
signal.signal(signal.SIGTERM, term)
signal.signal(signal.SIGWINCH, lambda *_: print("SIGWINCH", flush=True))
print("ready", flush=True)
while True:
    signal.pause()
"""


async def _signals_before_a_marker(master: asyncio.subprocess.Process) -> list[str]:
    """The signals the stand-in got before a SIGWINCH sent now: any SIGTERM sent earlier."""
    assert master.stdout is not None
    os.kill(master.pid, signal.SIGWINCH)
    said = []
    async with asyncio.timeout(10):
        while (line := (await master.stdout.readline()).decode().strip()) != "SIGWINCH":
            assert line, "the stand-in ended"
            said.append(line)
    return said


async def test_a_worker_passes_sigterm_on_only_to_a_master_not_told_to_stop() -> None:
    """Every process signalled at once: the master's own SIGTERM sets its stop event, and a
    second one while its handler sets it would deadlock Hypercorn's master, so the worker sends
    none; a worker signalled alone tells its master (here a real process, which SIGTERM ends)."""
    event = multiprocessing.get_context("spawn").Event()
    master = await asyncio.create_subprocess_exec(
        sys.executable, "-c", STAND_IN, stdout=asyncio.subprocess.PIPE
    )
    assert master.stdout is not None
    try:
        assert await master.stdout.readline() == b"ready\n"
        event.set()
        assert await pass_on_sigterm(master.pid, event, seconds=0.3) is False
        assert await _signals_before_a_marker(master) == []  # not signalled

        event.clear()
        loop = asyncio.get_running_loop()
        loop.call_later(0.15, event.set)  # the master's own signal, a moment later
        assert await pass_on_sigterm(master.pid, event, seconds=1.0) is False
        assert await _signals_before_a_marker(master) == []

        event.clear()
        assert await pass_on_sigterm(master.pid, event, seconds=0.3) is True
        assert await asyncio.wait_for(master.wait(), 5) == -15  # SIGTERM
    finally:
        with contextlib.suppress(ProcessLookupError):
            master.kill()
        await master.wait()
