"""Periodic: the one background loop of the upload sweep, the retention purge and the audit
checkpoint. Steps run in turn every interval; one that fails is logged and does not stop the
others or the next run; stop() ends the loop."""

from __future__ import annotations

import asyncio

import pytest

from bff.leases import Periodic


async def test_steps_run_in_turn_at_start_and_a_failure_stops_nothing(
    caplog: pytest.LogCaptureFixture,
) -> None:
    ran: list[str] = []

    async def first() -> None:
        ran.append("first")

    async def broken() -> None:
        ran.append("broken")
        raise RuntimeError("storage away")

    async def last() -> None:
        ran.append("last")

    periodic = Periodic(0.05, [("First", first), ("Broken", broken), ("Last", last)], at_start=True)
    periodic.start()
    for _ in range(100):
        if ran.count("last") >= 2:
            break
        await asyncio.sleep(0.02)
    await periodic.stop()
    assert ran[:6] == ["first", "broken", "last"] * 2
    assert "Broken failed; retrying later." in caplog.text
    count = len(ran)
    await asyncio.sleep(0.15)
    assert len(ran) == count  # stopped: nothing runs after stop()


async def test_a_job_not_run_at_start_waits_one_interval() -> None:
    ran: list[float] = []

    async def step() -> None:
        ran.append(asyncio.get_running_loop().time())

    periodic = Periodic(0.3, [("Step", step)], at_start=False)
    started = asyncio.get_running_loop().time()
    periodic.start()
    await asyncio.sleep(0.1)
    assert ran == []
    for _ in range(50):
        if ran:
            break
        await asyncio.sleep(0.05)
    await periodic.stop()
    assert ran and ran[0] - started >= 0.3


async def test_settled_waits_for_the_run_at_start() -> None:
    """What a test's fixture waits for before writing the test's data: the run at start."""
    gate, ran = asyncio.Event(), []

    async def step() -> None:
        await gate.wait()
        ran.append("step")

    periodic = Periodic(1000, [("Step", step)], at_start=True)
    periodic.start()
    settled = asyncio.ensure_future(periodic.settled())
    for _ in range(5):
        await asyncio.sleep(0)  # turns of the loop: the run is under way, held at the gate
    assert not settled.done()
    gate.set()
    await settled
    assert ran == ["step"]
    await periodic.stop()
    await periodic.settled()  # stopped: nothing in progress
