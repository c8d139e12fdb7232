"""The garbage collector's schedule while the app serves (bff/collector.py): no automatic full
collection (each walks every live connection's objects, stopping the process for most of a
second at 5,000), young cycles freed as before, and a full collection every FULL_SECONDS at a
moment without requests, which frees cycles of objects that had lived long."""

from __future__ import annotations

import asyncio
import gc
import weakref
from pathlib import Path

import pytest

from bff import collector
from bff.turns import RequestInProgress
from tests.conftest import make_settings, started_app


class _Node:
    def __init__(self) -> None:
        self.me = self  # a cycle: only the garbage collector frees it


def _old_cycle() -> weakref.ref[_Node]:
    """A cycle that lived long enough to reach the oldest generation, now garbage."""
    node = _Node()
    gc.collect(1)  # survivors of the young and middle generations move to the oldest
    return weakref.ref(node)


class _Looks:
    """How often the schedule, its full collection due, has looked for a moment without
    requests (a spy on the count it asks: bff.collector.requests_in_progress)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.count = 0
        asked = collector.requests_in_progress

        def counted() -> int:
            self.count += 1
            return asked()

        monkeypatch.setattr(collector, "requests_in_progress", counted)


class _Checks:
    """How often the schedule has checked the closed connections against CLOSED_LIMIT: the
    limit is an int that counts the comparisons made with it (`_closed < CLOSED_LIMIT` asks
    the right operand first, an int subclass: its __gt__)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, limit: int) -> None:
        checks = self

        class Limit(int):
            def __gt__(self, other: object) -> bool:
                checks.count += 1
                return int(self) > other  # type: ignore[operator]

        self.count = 0
        monkeypatch.setattr(collector, "CLOSED_LIMIT", Limit(limit))


async def test_serving_app_collects_fully_only_on_schedule_and_between_requests(
    database_url: str, run_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(collector, "FULL_SECONDS", 0.2)
    before = gc.get_threshold()
    async with started_app(make_settings(database_url, run_dir)):
        young, middle, oldest = gc.get_threshold()
        assert (young, middle) == before[:2]
        assert oldest == collector.NEVER
        assert gc.get_freeze_count() > 10_000  # the app's own heap: out of every collection

        # Long-lived objects pile up (a storm's connections): no automatic full collection.
        full = []

        def note(phase: str, info: dict[str, int]) -> None:
            if phase == "start" and info["generation"] == 2:
                full.append(1)

        gc.callbacks.append(note)
        try:
            kept = [[n] for n in range(min(max(len(gc.get_objects(2)) // 3, 100_000), 1_000_000))]
        finally:
            gc.callbacks.remove(note)
        assert full == [], "an automatic full collection ran"
        del kept

        young_cycle = weakref.ref(_Node())
        gc.collect(0)  # what allocation triggers by itself: young cycles still freed
        assert young_cycle() is None

        old = _old_cycle()
        looks = _Looks(monkeypatch)
        with RequestInProgress():  # a request in progress: the full collection waits
            async with asyncio.timeout(10):
                while looks.count < 3:  # the schedule's own looks, counted
                    gc.collect(0)
                    gc.collect(1)
                    await asyncio.sleep(collector.QUIET_POLL)
            # Due (it looks for a moment without requests only once FULL_SECONDS have passed),
            # it has looked three times and found this request each time: not freed meanwhile.
            assert old() is not None
        async with asyncio.timeout(10):  # a full collection of a whole test run's heap
            while old() is not None:  # noqa: ASYNC110 - a weak reference has no event
                await asyncio.sleep(0.01)
    assert gc.get_threshold() == before


async def test_thresholds_come_back_when_the_last_app_of_the_process_stops() -> None:
    before = gc.get_threshold()
    first, second = collector.Collector(), collector.Collector()
    first.start()
    second.start()
    await first.stop()
    assert gc.get_threshold()[2] == collector.NEVER  # the other still serves
    await second.stop()
    assert gc.get_threshold() == before
    await second.stop()  # stopping twice changes nothing
    assert gc.get_threshold() == before


async def test_closed_live_connections_bring_the_full_collection_forward(
    database_url: str, run_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(collector, "FULL_SECONDS", 1000.0)
    monkeypatch.setattr(collector, "CHECK_SECONDS", 0.05)
    async with started_app(make_settings(database_url, run_dir)):
        collector.collect_fully()  # counts from here
        old = _old_cycle()
        checks = _Checks(monkeypatch, 3)
        collector.connection_closed()
        collector.connection_closed()
        seen = checks.count
        async with asyncio.timeout(10):
            while checks.count < seen + 2:  # noqa: ASYNC110 - the schedule's own checks, counted
                await asyncio.sleep(collector.CHECK_SECONDS / 5)
        assert old() is not None  # two closed: checked twice since, and not yet
        collector.connection_closed()
        async with asyncio.timeout(10):  # a full collection of a whole test run's heap
            while old() is not None:  # noqa: ASYNC110 - a weak reference has no event
                await asyncio.sleep(0.01)
