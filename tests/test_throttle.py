"""The durable throttle's database count (bff/throttle.py, issue 48 item 2) on SQLite and
PostgreSQL: counters of different processes (each its own FailureCounter) share one atomic
count, and the table stays bounded whatever an attacker sends."""

from __future__ import annotations

import asyncio
import math
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from quart import Quart

from bff import throttle as window
from bff.throttle import FailureCounter, Limit, ThrottleEntry
from tests.conftest import make_settings

WINDOW = 900
ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
async def counters(
    app: Quart, database_url: str, run_dir: Path
) -> AsyncIterator[list[FailureCounter]]:
    """Four processes' counters (two instances of two workers), Redis configured but down."""
    settings = make_settings(database_url, run_dir, redis_url="redis://127.0.0.1:1/0")
    made = [FailureCounter(settings, "test", WINDOW, durable=True) for _ in range(4)]
    yield made
    for counter in made:
        await counter.aclose()


async def test_concurrent_reservations_in_four_processes_pass_the_limit_once(
    counters: list[FailureCounter],
) -> None:
    """40 reservations at once, 10 through each process's counter: 5 pass (the limit), the
    rest are told to wait until the oldest leaves the window."""
    limits = [Limit("pair:nurse\n10.1.1.1", 5), Limit("addr:10.1.1.1", 30)]
    results = await asyncio.gather(*(c.reserve(limits) for c in counters for _ in range(10)))
    passed = [reservation for reservation, wait in results if wait is None]
    assert len(passed) == 5
    assert all(reservation is not None for reservation in passed)
    waits = {wait for _, wait in results if wait is not None}
    # (A second more where the attempt took its time before another's, which then counted.)
    assert waits and all(WINDOW - 60 < wait <= WINDOW + 1 for wait in waits)
    assert await ThrottleEntry.all().count() == 5 * 2


async def test_a_released_or_cleared_attempt_no_longer_counts_anywhere(
    counters: list[FailureCounter],
) -> None:
    """What one process gives back (a right password) or clears (the pair's right password)
    no longer counts in any process, the one that counted it included."""
    first, second = counters[:2]
    key = "pair:doctor\n10.1.1.2"
    limits = [Limit(key, 2)]
    kept, _ = await first.reserve(limits)
    given_back, _ = await first.reserve(limits)
    assert kept is not None and given_back is not None
    assert (await second.reserve(limits))[1] is not None
    await first.release(given_back, [key])
    assert (await second.reserve(limits))[1] is None
    assert (await first.reserve(limits))[1] is not None
    await second.clear(key)
    assert (await first.reserve(limits))[1] is None
    assert (await first.reserve(limits))[1] is None


async def test_a_back_off_limit_slows_every_process_alike(
    counters: list[FailureCounter], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Beyond a back-off limit each attempt waits twice as long after the previous one, in
    whichever process it arrives."""
    clock = [1_900_000_000.0]
    monkeypatch.setattr(window.time, "time", lambda: clock[0])
    limits = [Limit("user:chief", 2, backoff=True)]
    for counter in counters[:2]:
        assert (await counter.reserve(limits))[1] is None
    for expected, counter in zip((1, 2, 4), counters[1:], strict=True):
        assert (await counter.reserve(limits))[1] == expected
        clock[0] += expected
        assert (await counters[0].reserve(limits))[1] is None


async def test_the_table_keeps_no_names_and_stays_bounded(
    counters: list[FailureCounter], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Keys are stored hashed; failures counted without a limit keep MAX_ENTRIES_PER_KEY rows
    per key; rows past their window do not count and are deleted by the next sweep."""
    monkeypatch.setattr(window, "MAX_ENTRIES_PER_KEY", 10)
    for _ in range(25):
        await counters[0].failed([Limit("addr:10.9.9.9", 1)])
    assert await ThrottleEntry.all().count() == 10
    assert all("10.9.9.9" not in row.key_hash for row in await ThrottleEntry.all())
    # Rows of a key whose window has passed: invisible to its count, then swept.
    await ThrottleEntry.all().update(expires=time.time() - 1)
    monkeypatch.setattr(window._Database, "_swept", -math.inf)  # the next insert sweeps
    limits = [Limit("addr:10.9.9.9", 1)]
    assert (await counters[1].reserve(limits))[1] is None  # (not this process's own count)
    assert await ThrottleEntry.filter(expires__lt=time.time()).count() == 0
    assert await ThrottleEntry.all().count() == 1


async def test_the_sweep_runs_at_most_every_sweep_seconds(
    counters: list[FailureCounter], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A process sweeps the whole table once per SWEEP_SECONDS, not at every attempt."""
    monkeypatch.setattr(window._Database, "_swept", -math.inf)
    await counters[0].reserve([Limit("a", 5)])  # sweeps
    await ThrottleEntry.create(key_hash="0" * 32, member="m", expires=time.time() - 1)
    await counters[1].reserve([Limit("b", 5)])  # within SWEEP_SECONDS of the last: no sweep
    assert await ThrottleEntry.filter(key_hash="0" * 32).count() == 1


CHILD = """
import asyncio, sys
from bff.db import close_db, init_db
from bff.throttle import FailureCounter, Limit
from config.settings import load_settings

async def main():
    settings = load_settings(database_url=sys.argv[1], var_dir=sys.argv[2])
    await init_db(settings)
    counter = FailureCounter(settings, "processes", 900, durable=True)
    print("ready", flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
    results = await asyncio.gather(*(counter.reserve([Limit("pair:x", 5)]) for _ in range(10)))
    print(sum(1 for _, wait in results if wait is None), flush=True)
    await close_db()

asyncio.run(main())
"""


async def test_four_real_processes_share_one_count(
    app: Quart, database_url: str, run_dir: Path
) -> None:
    """Four Python processes on the test's database (SQLite's file: BEGIN IMMEDIATE; PostgreSQL:
    the keys' advisory locks), each ready before any starts, then 10 reservations at once in
    each: 5 pass in all, and no process fails."""
    children = [
        await asyncio.create_subprocess_exec(
            sys.executable,
            "-c",
            CHILD,
            database_url,
            str(run_dir),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            cwd=ROOT,
        )
        for _ in range(4)
    ]
    try:
        for child in children:
            assert child.stdout is not None
            assert await asyncio.wait_for(child.stdout.readline(), 60) == b"ready\n"
        for child in children:  # all at once
            assert child.stdin is not None
            child.stdin.write(b"go\n")
            await child.stdin.drain()
        passed = []
        for child in children:
            out, _ = await asyncio.wait_for(child.communicate(), 60)
            assert child.returncode == 0
            passed.append(int(out))
        assert sum(passed) == 5, passed
    finally:
        for child in children:
            if child.returncode is None:
                child.kill()
                await child.wait()
