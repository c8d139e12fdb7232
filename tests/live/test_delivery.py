"""How one process delivers live events to its own connections (bff/live/managers.py's
`_Deliveries`): a slice of connections at a time with the loop's turn between, one event after
another, at most DELIVERIES_WAITING waiting; and the connections' writers (bff/live/
transport.py's `_poll`, without a time limit) ending with their connections."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest

from bff.live import managers
from bff.live.events import user_room
from bff.services import app_services
from bff.users.models import Role
from tests.factories import make_staff
from tests.live.conftest import Listener, LiveServer


async def _listeners(live: LiveServer, count: int) -> tuple[list[Any], list[Listener]]:
    staff = [await make_staff(live.settings, Role.NURSE) for _ in range(count)]
    ears = [await live.listener(member.token, f"nurse-{i}") for i, member in enumerate(staff)]
    return staff, ears


def _names(listener: Listener, *wanted: str) -> list[str]:
    return [name for name in listener.names() if name in wanted]


async def test_a_long_fan_out_takes_turns_and_keeps_each_connections_order(
    live: LiveServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(managers, "DELIVERY_SLICE", 1)
    hub = app_services(live.app).live
    staff, ears = await _listeners(live, 4)
    everyone = [user_room(member.user.id) for member in staff]
    last = user_room(staff[-1].user.id)

    # What ran between the packets queued for the fan-out's recipients: the loop's other work
    # gets its turns.
    timeline: list[str] = []
    for socket in hub.sio.eio.sockets.values():
        put = socket.queue.put_nowait

        def recorded(packet: Any, put: Any = put) -> None:
            timeline.append("send")
            put(packet)

        monkeypatch.setattr(socket.queue, "put_nowait", recorded)

    async def other_work() -> None:
        for _ in range(6):
            timeline.append("other")
            await asyncio.sleep(0)

    # Sent as the app sends (fire and forget): the fan-out first, then an event to the last
    # of its recipients only, which must not overtake it.
    await hub.send("test:wide", {"n": 1}, everyone)
    await hub.send("test:narrow", {"n": 2}, [last])
    await other_work()
    await ears[-1].wait_for("test:narrow")
    for listener in ears:
        await listener.wait_for("test:wide")
    assert _names(ears[-1], "test:wide", "test:narrow") == ["test:wide", "test:narrow"]
    first, final = timeline.index("send"), len(timeline) - 1 - timeline[::-1].index("send")
    assert "other" in timeline[first:final], timeline  # not one turn for the whole fan-out


async def test_events_beyond_the_waiting_limit_are_dropped_and_said(
    live: LiveServer, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(managers, "DELIVERIES_WAITING", 2)
    hub = app_services(live.app).live
    staff, [ears] = await _listeners(live, 1)
    room = user_room(staff[0].user.id)
    manager = hub.sio.manager
    with caplog.at_level(logging.WARNING, logger="bff.live.managers"):
        # Queued in one turn of the loop: the delivery task has not taken any yet.
        taken = [managers.deliver(manager, f"test:{n}", {}, "/", room) for n in range(4)]
        assert [await done for done in taken] == [True, True, False, False]
    assert "Live event test:2 dropped: 2 events wait" in caplog.text
    await ears.wait_for("test:1")
    # A dropped event fails the app's send the way Redis being down does: logged, counted.
    managers.deliver(manager, "test:filler", {}, "/", room)  # the queue of 2: full again
    managers.deliver(manager, "test:filler", {}, "/", room)
    with caplog.at_level(logging.WARNING, logger="bff.live.server"):
        await hub._emit("test:late", {}, [room])  # what hub.send runs
    assert "Live event test:late not delivered: RuntimeError" in caplog.text
    await ears.wait_for("test:filler")
    assert _names(ears, "test:0", "test:1", "test:2", "test:3", "test:late") == [
        "test:0",
        "test:1",
    ]


def _writers() -> list[asyncio.Task[Any]]:
    return [
        task
        for task in asyncio.all_tasks()
        if task.get_coro().__qualname__.endswith("_websocket_handler.<locals>.writer")  # type: ignore[union-attr]
    ]


async def test_connections_writers_end_with_their_connections(live: LiveServer) -> None:
    """A writer waits for its next packet without a time limit: whoever ends the connection
    (the client, or the server at a sign-out) must wake it, or it would wait for ever."""
    staff, ears = await _listeners(live, 3)
    assert len(_writers()) == 3
    await ears[0].close()  # the client leaves
    response = await live.app.test_client().post(  # the server ends a session
        "/api/auth/logout", headers=staff[1].headers
    )
    assert response.status_code in (200, 204)
    await ears[1].disconnected.wait()
    async with asyncio.timeout(5):
        while len(_writers()) > 1:  # noqa: ASYNC110 - the loop's tasks, no event
            await asyncio.sleep(0.02)
    hub = app_services(live.app).live
    await hub.send("test:still", {}, [user_room(staff[2].user.id)])
    await ears[2].wait_for("test:still")
