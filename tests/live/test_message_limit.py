"""Messages from live clients are small (a token, pings): one over 16KB ends the connection,
through a real server and real Socket.IO clients."""

from __future__ import annotations

import asyncio

import pytest
import socketio

from bff.live.server import CLIENT_MESSAGE_LIMIT
from bff.users.models import Role
from tests.factories import make_staff
from tests.live.conftest import LiveServer


async def test_a_message_over_the_limit_ends_the_connection(live: LiveServer) -> None:
    nurse = await make_staff(live.settings, Role.NURSE)
    talker = await live.listener(nurse.token, "talker")
    quiet = await live.listener(nurse.token, "quiet")
    await quiet.client.emit("note", "x" * 1000)  # small messages are fine (and ignored)
    await talker.client.emit("note", "x" * (CLIENT_MESSAGE_LIMIT + 1024))
    await asyncio.wait_for(talker.disconnected.wait(), 5)
    # The other connection is untouched.
    assert quiet.client.connected
    assert not quiet.disconnected.is_set()


async def test_an_oversized_connect_payload_is_refused(live: LiveServer) -> None:
    nurse = await make_staff(live.settings, Role.NURSE)
    client = socketio.AsyncClient(reconnection=False)
    with pytest.raises(socketio.exceptions.ConnectionError):
        await client.connect(
            live.base,
            auth={"token": nurse.token, "padding": "x" * (CLIENT_MESSAGE_LIMIT * 2)},
            transports=["websocket"],
            wait_timeout=5,
        )
    assert not client.connected
    await client.disconnect()
