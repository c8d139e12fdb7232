"""A storm of live connections takes turns: at most HANDSHAKES_AT_ONCE of a process are in their
set-up at once (bff/live/transport.py's HandshakeGate), and every one of the storm still connects.
A turn ends with the connection's handshake, accepted or refused, so refusals and clients that
go away never keep the others waiting. Real Socket.IO clients through a real server; the gate
made 2 wide so a handful of clients is a storm."""

from __future__ import annotations

import asyncio

import aiohttp
import pytest
import socketio

from bff.live import transport
from bff.users.models import Role
from tests.factories import make_staff
from tests.live.conftest import LiveServer, marker


@pytest.fixture
def narrow_gate(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(transport, "HANDSHAKES_AT_ONCE", 2)


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
        async with asyncio.timeout(transport.HANDSHAKE_SECONDS / 2):
            listener = await live.listener(nurse.token)
        assert listener.client.connected
        for ws in silent:
            await ws.close()
