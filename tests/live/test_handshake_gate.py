"""A storm of live connections takes turns: at most HANDSHAKES_AT_ONCE of a process are set up
on the CPU at once (bff/live/transport.py's HandshakeGate), and every one of the storm still
connects. A turn ends with the connection's handshake, accepted or refused, so refusals and
clients that go away never keep the others waiting, and it is not held while the client is to
speak or the database looks the session up. Real Socket.IO clients through a real server; the
gate made 2 wide (or 1, as it is) so a handful of clients is a storm."""

from __future__ import annotations

import asyncio
from typing import Any

import aiohttp
import pytest
import socketio

from bff.auth import repository
from bff.live import transport, turns
from bff.users.models import Role
from tests.factories import make_staff
from tests.live.conftest import LiveServer, marker


@pytest.fixture
def narrow_gate(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(transport, "HANDSHAKES_AT_ONCE", 2)


@pytest.fixture
def one_at_a_time(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(transport, "HANDSHAKES_AT_ONCE", 1)


async def test_a_storm_wider_than_the_gate_all_connects_and_hears_events(
    narrow_gate: None, live: LiveServer
) -> None:
    admin = await make_staff(live.settings, Role.ADMIN)
    nurse = await make_staff(live.settings, Role.NURSE)
    ears = await asyncio.gather(*(live.listener(nurse.token, f"tab {n}") for n in range(7)))
    assert all(listener.client.connected for listener in ears)
    for listener in ears:
        await marker(live, admin, listener, nurse.user)


async def test_refused_and_abandoned_handshakes_give_their_turn_back(
    narrow_gate: None, live: LiveServer
) -> None:
    nurse = await make_staff(live.settings, Role.NURSE)
    for _ in range(3):  # refused: each turn ends with the refusal
        with pytest.raises(socketio.exceptions.ConnectionError):
            await live.listener("not-a-token")
    url = f"{live.base.replace('http', 'ws')}/socket.io/?EIO=4&transport=websocket"
    async with aiohttp.ClientSession() as session:
        for _ in range(3):  # opened, then closed before the Socket.IO connect
            async with session.ws_connect(url) as ws:
                assert (await ws.receive_str()).startswith('0{"sid"')
    listener = await live.listener(nurse.token)
    assert listener.client.connected


async def test_clients_that_open_and_say_nothing_hold_no_turn(
    narrow_gate: None, live: LiveServer
) -> None:
    """Turns are held only while the server works: websockets opened and left silent after
    Engine.IO's open (as many as the gate is wide) do not keep a real client waiting for their
    HANDSHAKE_SECONDS."""
    nurse = await make_staff(live.settings, Role.NURSE)
    url = f"{live.base.replace('http', 'ws')}/socket.io/?EIO=4&transport=websocket"
    async with aiohttp.ClientSession() as session:
        silent = [await session.ws_connect(url) for _ in range(transport.HANDSHAKES_AT_ONCE)]
        for ws in silent:
            assert (await ws.receive_str()).startswith('0{"sid"')
        async with asyncio.timeout(turns.HANDSHAKE_SECONDS / 2):
            listener = await live.listener(nurse.token)
        assert listener.client.connected
        for ws in silent:
            await ws.close()


@pytest.mark.parametrize("packet", ["3", "6", "2", '42["x"]'])
async def test_a_packet_other_than_the_connect_holds_no_turn(
    one_at_a_time: None, live: LiveServer, packet: str
) -> None:
    """An unauthenticated client opens a websocket and sends an Engine.IO pong, noop or ping, or
    an event before connecting: no answer follows (nothing would give the turn back), so none
    of them may take the only turn from a real client for HANDSHAKE_SECONDS."""
    nurse = await make_staff(live.settings, Role.NURSE)
    url = f"{live.base.replace('http', 'ws')}/socket.io/?EIO=4&transport=websocket"
    async with aiohttp.ClientSession() as session, session.ws_connect(url) as ws:
        assert (await ws.receive_str()).startswith('0{"sid"')
        await ws.send_str(packet)
        await asyncio.sleep(0.1)  # read by the server before the real client arrives
        async with asyncio.timeout(turns.HANDSHAKE_SECONDS / 2):
            listener = await live.listener(nurse.token)
        assert listener.client.connected


async def test_a_set_up_waiting_for_the_database_lets_the_next_one_work(
    one_at_a_time: None, live: LiveServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One set-up at a time, and each session looked up in the database (none cached yet): the
    turn covers the CPU only, so the lookups overlap instead of queueing one behind another
    (after a restart every connection's session is a lookup)."""
    nurses = [await make_staff(live.settings, Role.NURSE) for _ in range(4)]
    looked_up = repository.session_with_user
    in_flight = most = 0

    async def slow_database(session_id: str) -> Any:
        nonlocal in_flight, most
        in_flight += 1
        most = max(most, in_flight)
        try:
            await asyncio.sleep(0.3)  # a remote database's answer, or a busy one
            return await looked_up(session_id)
        finally:
            in_flight -= 1

    monkeypatch.setattr(repository, "session_with_user", slow_database)
    ears = await asyncio.gather(*(live.listener(nurse.token) for nurse in nurses))
    assert all(listener.client.connected for listener in ears)
    assert most >= 2  # with the turn held across the lookup: 1


async def test_a_set_up_back_from_its_wait_goes_ahead_of_the_newcomers() -> None:
    gate = turns.Gate(1)
    order: list[str] = []

    async def one(name: str, returning: bool) -> None:
        await gate.take(returning)
        order.append(name)
        await asyncio.sleep(0)
        gate.give_back()

    await gate.take()  # a set-up holds the only turn
    waiting = [asyncio.create_task(one(f"new {n}", False)) for n in range(3)]
    await asyncio.sleep(0)
    back = asyncio.create_task(one("back from the database", True))
    await asyncio.sleep(0)
    gate.give_back()
    await asyncio.gather(*waiting, back)
    assert order == ["back from the database", "new 0", "new 1", "new 2"]


async def test_a_turn_handed_to_a_cancelled_waiter_goes_on_to_the_next() -> None:
    gate = turns.Gate(1)
    await gate.take()
    first = asyncio.create_task(gate.take())
    second = asyncio.create_task(gate.take())
    await asyncio.sleep(0)
    gate.give_back()  # handed to the first...
    first.cancel()  # ...which is cancelled before it runs
    with pytest.raises(asyncio.CancelledError):
        await first
    async with asyncio.timeout(1):
        await second  # the turn went on to the second, not lost


async def test_a_turn_ended_while_stepped_aside_is_not_taken_again() -> None:
    """The set-up's answer went out (or its time ran out) while its session lookup waited: the
    lookup's end must not take the turn again, to hold it for HANDSHAKE_SECONDS."""
    gate = turns.Gate(1)
    turn = turns.Turn(gate)
    await turn.take()
    assert turn.step_aside()  # waiting for the database
    turn.give_back()  # the answer sent meanwhile
    await turn.come_back()
    assert not turn.held
    await turn.take()  # a turn is still there to take
    assert turn.held
    turn.end()


async def test_an_ended_connection_takes_no_turn_again() -> None:
    gate = turns.Gate(1)
    turn = turns.Turn(gate)
    await turn.take()
    assert turn.step_aside()  # waiting for the database
    turn.end()  # the client went away meanwhile
    await turn.come_back()
    await turn.take()
    assert not turn.held
    other = turns.Turn(gate)
    async with asyncio.timeout(1):
        await other.take()  # the only turn is free
    assert other.held
    other.end()
