"""How one process delivers live events to its own connections (bff/live/delivery.py's
`Deliveries`): a slice of packets at a time with the loop's turn between, one event after
another, recipients fixed when the event is sent, at most DELIVERIES_WAITING waiting (never a
sign-out dropped, and `live:resync` after a drop), nothing left hanging when the app stops;
and the connections' writers (bff/live/patches/engineio_sockets.py's `poll`, without a time
limit) ending with their connections."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator
from typing import Any

import pytest

from bff import metrics
from bff.live import delivery
from bff.live.events import SESSION_REVOKED, user_room
from bff.live.patches import wire
from bff.services import app_services
from bff.users.models import Role
from tests.factories import make_staff
from tests.live.conftest import Listener, LiveServer, marker


async def _listeners(live: LiveServer, count: int) -> tuple[list[Any], list[Listener]]:
    staff = [await make_staff(live.settings, Role.NURSE) for _ in range(count)]
    ears = [await live.listener(member.token, f"nurse-{i}") for i, member in enumerate(staff)]
    return staff, ears


def _names(listener: Listener, *wanted: str) -> list[str]:
    return [name for name in listener.names() if name in wanted]


def _record_puts(live: LiveServer, monkeypatch: pytest.MonkeyPatch, timeline: list[str]) -> None:
    """Note in `timeline` each event written to a connection's socket or queued for its
    writer, for any connection of the server."""
    write = wire.Wire.write

    def written(wire: wire.Wire, frames: bytes) -> bool:
        done = write(wire, frames)
        if done:
            timeline.append("send")
        return done

    monkeypatch.setattr(wire.Wire, "write", written)
    for socket in app_services(live.app).live.sio.eio.sockets.values():
        put = socket.queue.put_nowait

        def recorded(packet: Any, put: Any = put) -> None:
            timeline.append("send")
            put(packet)

        monkeypatch.setattr(socket.queue, "put_nowait", recorded)


async def _other_work(timeline: list[str]) -> None:
    for _ in range(8):
        timeline.append("other")
        await asyncio.sleep(0)


def _took_turns(timeline: list[str]) -> bool:
    first, final = timeline.index("send"), len(timeline) - 1 - timeline[::-1].index("send")
    return "other" in timeline[first:final]


@pytest.fixture
def held(live: LiveServer, monkeypatch: pytest.MonkeyPatch) -> Iterator[asyncio.Event]:
    """While the event is not set, the delivery task stops at `test:hold`."""
    deliver = delivery.Deliveries._deliver
    release = asyncio.Event()

    async def holding(deliveries: Any, delivery: Any, budget: int) -> int:
        if delivery.event == "test:hold":
            await release.wait()
        return await deliver(deliveries, delivery, budget)

    monkeypatch.setattr(delivery.Deliveries, "_deliver", holding)
    yield release
    release.set()


async def test_a_long_fan_out_takes_turns_and_keeps_each_connections_order(
    live: LiveServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(delivery, "DELIVERY_SLICE", 1)
    hub = app_services(live.app).live
    staff, ears = await _listeners(live, 4)
    everyone = [user_room(member.user.id) for member in staff]
    last = user_room(staff[-1].user.id)
    timeline: list[str] = []
    _record_puts(live, monkeypatch, timeline)

    # Sent as the app sends (fire and forget): the fan-out first, then an event to the last
    # of its recipients only, which must not overtake it.
    await hub.send("test:wide", {"n": 1}, everyone)
    await hub.send("test:narrow", {"n": 2}, [last])
    await _other_work(timeline)
    await ears[-1].wait_for("test:narrow")
    for listener in ears:
        await listener.wait_for("test:wide")
    assert _names(ears[-1], "test:wide", "test:narrow") == ["test:wide", "test:narrow"]
    assert _took_turns(timeline), timeline  # not one turn for the whole fan-out


async def test_a_burst_of_small_events_takes_turns_too(
    live: LiveServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(delivery, "DELIVERY_SLICE", 2)
    hub = app_services(live.app).live
    staff, [ears] = await _listeners(live, 1)
    timeline: list[str] = []
    _record_puts(live, monkeypatch, timeline)
    room = user_room(staff[0].user.id)
    burst = [delivery.deliver(hub.sio.manager, f"test:{n}", {}, "/", room) for n in range(6)]
    await _other_work(timeline)
    assert await asyncio.gather(*burst) == [True] * 6
    assert _took_turns(timeline), timeline
    await ears.wait_for("test:5")
    assert _names(ears, *(f"test:{n}" for n in range(6))) == [f"test:{n}" for n in range(6)]


async def test_who_gets_an_event_is_fixed_when_it_is_sent(
    live: LiveServer, held: asyncio.Event
) -> None:
    """A sign-out of every session of a user, delivered after the user signed in again: the
    new session's connection is neither told nor ended."""
    admin = await make_staff(live.settings, Role.ADMIN)
    nurse = await make_staff(live.settings, Role.NURSE)
    hub = app_services(live.app).live
    old_tab = await live.listener(nurse.token, "old")
    room = user_room(nurse.user.id)
    holding = delivery.deliver(hub.sio.manager, "test:hold", {}, "/", room)  # the queue stalls
    ended = delivery.deliver(hub.sio.manager, SESSION_REVOKED, {"reason": "ended"}, "/", room)
    new_tab = await live.listener(nurse.token, "new")  # joins the room meanwhile
    held.set()
    assert await holding and await ended
    await old_tab.disconnected.wait()
    assert await old_tab.wait_for(SESSION_REVOKED) == {"reason": "ended"}
    await marker(live, admin, new_tab, nurse.user)
    assert "test:hold" not in new_tab.names()
    assert SESSION_REVOKED not in new_tab.names()
    assert not new_tab.disconnected.is_set()


def _delivery_seconds() -> tuple[float, float]:
    """bff_live_delivery_seconds as an operator scrapes it: (events observed, their seconds)."""
    histogram = metrics.LIVE_DELIVERY_SECONDS
    return sum(bucket.get() for bucket in histogram._buckets), histogram._sum.get()


async def test_how_long_each_event_took_to_reach_every_recipient_is_measured(
    live: LiveServer, held: asyncio.Event
) -> None:
    """One observation per event delivered, from its sending to its last recipient having it
    (an event waiting behind a slow one counts its wait); none for an event not delivered."""
    hub = app_services(live.app).live
    staff, ears = await _listeners(live, 3)
    room = [user_room(member.user.id) for member in staff]
    manager = hub.sio.manager
    count, seconds = _delivery_seconds()
    holding = delivery.deliver(manager, "test:hold", {}, "/", room)
    behind = delivery.deliver(manager, "test:behind", {}, "/", room)
    await asyncio.sleep(0.3)
    held.set()
    assert await holding and await behind
    for listener in ears:
        await listener.wait_for("test:behind")
    now_count, now_seconds = _delivery_seconds()
    assert now_count - count == 2
    assert 0.6 <= now_seconds - seconds < 5  # each waited the 0.3 s hold
    await manager.deliveries.aclose()
    assert await delivery.deliver(manager, "test:late", {}, "/", room) is False
    assert _delivery_seconds()[0] == now_count


def _failures() -> float:
    return metrics.LIVE_EVENT_FAILURES._value.get()


async def test_beyond_the_waiting_limit_events_are_dropped_said_and_clients_resync(
    live: LiveServer,
    held: asyncio.Event,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    monkeypatch.setattr(delivery, "DELIVERIES_WAITING", 2)
    hub = app_services(live.app).live
    staff, [ears, other] = await _listeners(live, 2)
    room = user_room(staff[0].user.id)
    manager = hub.sio.manager
    failures = _failures()
    with caplog.at_level(logging.WARNING, logger="bff.live.delivery"):
        first = delivery.deliver(manager, "test:hold", {}, "/", room)
        await asyncio.sleep(0.05)  # taken by the delivery task, which stops at it
        taken = [delivery.deliver(manager, f"test:{n}", {}, "/", room) for n in range(4)]
        assert [done.done() for done in taken] == [False, False, True, True]
        # A dropped event fails the app's send once: logged and counted where it was dropped.
        await hub._emit("test:late", {}, [room])
        # A sign-out is never dropped.
        ending = delivery.deliver(manager, SESSION_REVOKED, {"reason": "ended"}, "/", room)
        held.set()
        assert await first and await asyncio.gather(*taken) == [True, True, False, False]
        assert await ending
    assert "Live event test:2 dropped: 2 events wait" in caplog.text
    assert "Live event test:late dropped: 2 events wait" in caplog.text
    assert "not delivered" not in caplog.text
    assert _failures() - failures == 3
    await ears.disconnected.wait()
    assert _names(ears, "test:0", "test:1", "test:2", "test:3", "test:late") == [
        "test:0",
        "test:1",
    ]
    assert await other.wait_for("live:resync") == {}  # every connection refetches


async def test_stopping_resolves_what_waits_and_takes_no_more(
    live: LiveServer, held: asyncio.Event
) -> None:
    hub = app_services(live.app).live
    staff, _ = await _listeners(live, 1)
    room = user_room(staff[0].user.id)
    manager = hub.sio.manager
    first = delivery.deliver(manager, "test:hold", {}, "/", room)
    waiting = delivery.deliver(manager, "test:waiting", {}, "/", room)
    await asyncio.sleep(0.05)
    await manager.deliveries.aclose()
    assert first.done() and waiting.done()
    assert await first is False and await waiting is False
    late = delivery.deliver(manager, "test:late", {}, "/", room)
    assert late.done() and await late is False
    assert manager.deliveries._task is None  # no task started after the stop


def _writers() -> set[asyncio.Task[Any]]:
    return {
        task
        for task in asyncio.all_tasks()
        if task.get_coro().__qualname__.endswith("_websocket_handler.<locals>.writer")  # type: ignore[union-attr]
    }


async def test_connections_writers_end_with_their_connections(live: LiveServer) -> None:
    """A writer waits for its next packet without a time limit: whoever ends the connection
    (the client, or the server at a sign-out) must wake it, or it would wait for ever."""
    before = _writers()
    staff, ears = await _listeners(live, 3)
    ours = _writers() - before
    assert len(ours) == 3
    await ears[0].close()  # the client leaves
    response = await live.app.test_client().post(  # the server ends a session
        "/api/auth/logout", headers=staff[1].headers
    )
    assert response.status_code in (200, 204)
    await ears[1].disconnected.wait()
    async with asyncio.timeout(5):
        while len([task for task in ours if not task.done()]) > 1:  # noqa: ASYNC110 - the loop's tasks, no event
            await asyncio.sleep(0.02)
    hub = app_services(live.app).live
    await hub.send("test:still", {}, [user_room(staff[2].user.id)])
    await ears[2].wait_for("test:still")
