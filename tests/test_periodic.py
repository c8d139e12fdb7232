"""Periodic: the one background loop of the upload sweep, the retention purge and the audit
checkpoint. Steps run in turn every interval; one that fails is logged and does not stop the
others or the next run; stop() ends the loop.

What must not happen (a step after stop(), a run before its interval, settled() before the run
ends) is checked once a marker shows its moment has passed: another Periodic of the same
interval has ticked past it, or the step is known to be under way; never a sleep."""

from __future__ import annotations

import asyncio

import pytest

from bff.leases import Periodic


class Ticks:
    """A step that counts its runs; `reached(n)` returns once it has run n times."""

    def __init__(self) -> None:
        self.times: list[float] = []
        self._ran = asyncio.Event()

    async def __call__(self) -> None:
        self.times.append(asyncio.get_running_loop().time())
        self._ran.set()

    async def reached(self, count: int) -> None:
        async with asyncio.timeout(10):
            while len(self.times) < count:
                self._ran.clear()
                await self._ran.wait()


async def test_steps_run_in_turn_at_start_and_a_failure_stops_nothing(
    caplog: pytest.LogCaptureFixture,
) -> None:
    ran: list[str] = []
    last = Ticks()

    async def first() -> None:
        ran.append("first")

    async def broken() -> None:
        ran.append("broken")
        raise RuntimeError("storage away")

    async def last_step() -> None:
        ran.append("last")
        await last()

    periodic = Periodic(
        0.05, [("First", first), ("Broken", broken), ("Last", last_step)], at_start=True
    )
    periodic.start()
    await last.reached(2)
    await periodic.stop()
    assert ran[:6] == ["first", "broken", "last"] * 2
    assert "Broken failed; retrying later." in caplog.text
    count = len(ran)
    # Another loop of the same interval, started now, runs three times: the stopped one's
    # next two runs were due meanwhile.
    witness = Ticks()
    clock = Periodic(0.05, [("Witness", witness)], at_start=True)
    clock.start()
    await witness.reached(3)
    await clock.stop()
    assert len(ran) == count  # stopped: nothing runs after stop()


async def test_a_job_not_run_at_start_waits_one_interval() -> None:
    step = Ticks()
    periodic = Periodic(0.3, [("Step", step)], at_start=False)
    started = asyncio.get_running_loop().time()
    periodic.start()
    await step.reached(1)
    await periodic.stop()
    assert step.times[0] - started >= 0.3  # its first run came one interval after the start


async def test_settled_waits_for_the_run_at_start() -> None:
    """What a test's fixture waits for before writing the test's data: the run at start."""
    gate, under_way, order = asyncio.Event(), asyncio.Event(), []

    async def step() -> None:
        under_way.set()
        await gate.wait()
        order.append("step")

    async def settle() -> None:
        await periodic.settled()
        order.append("settled")

    periodic = Periodic(1000, [("Step", step)], at_start=True)
    settled = asyncio.ensure_future(settle())  # asks before the loop's first turn: as a
    periodic.start()  # fixture does right after the app starts
    # The run is under way, held at the gate; settle() had its turn before it (a wrong
    # settled() would have returned then, and appended first).
    await under_way.wait()
    assert order == [] and not settled.done()
    gate.set()
    await settled
    assert order == ["step", "settled"]
    await periodic.stop()
    await periodic.settled()  # stopped: nothing in progress
