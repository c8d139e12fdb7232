"""An event's frame written at once to each recipient's websocket by the delivery task
(bff/live/transport.py's `Wire` and `write_now`), through the real Hypercorn: only when
nothing of the connection's own is ahead of it, so each connection keeps its order, and never
to a client that stops reading (its events wait in its queue, behind Hypercorn's drain)."""

from __future__ import annotations

import asyncio
import json
import socket
from typing import Any
from urllib.parse import urlsplit

import engineio.packet
import pytest
from wsproto import ConnectionType, WSConnection
from wsproto.events import AcceptConnection, Request, TextMessage

from bff.live import managers, transport
from bff.live.events import user_room
from bff.services import app_services
from bff.users.models import Role
from tests.factories import make_staff
from tests.live.conftest import LiveServer


def _count_writes(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Each Wire.write's answer, in order."""
    answers: list[bool] = []
    write = transport.Wire.write

    def counted(wire: transport.Wire, frames: bytes) -> bool:
        answers.append(write(wire, frames))
        return answers[-1]

    monkeypatch.setattr(transport.Wire, "write", counted)
    return answers


async def test_an_event_is_written_to_each_websocket_at_once(
    live: LiveServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    staff = [await make_staff(live.settings, Role.NURSE) for _ in range(3)]
    ears = [await live.listener(member.token, f"nurse-{i}") for i, member in enumerate(staff)]
    engine = app_services(live.app).live.sio.eio
    assert all(isinstance(s.wire, transport.Wire) for s in engine.sockets.values())
    queued: list[Any] = []
    for eio_socket in engine.sockets.values():
        monkeypatch.setattr(eio_socket.queue, "put_nowait", queued.append)  # nothing queued
    writes = _count_writes(monkeypatch)
    hub = app_services(live.app).live
    await hub.send("test:wide", {"n": 1, "name": "Zoë"}, [user_room(m.user.id) for m in staff])
    for ear in ears:
        assert await ear.wait_for("test:wide") == {"n": 1, "name": "Zoë"}
    assert writes == [True, True, True]
    assert queued == []


async def test_an_event_waits_behind_what_is_queued_for_the_connection(
    live: LiveServer,
) -> None:
    nurse = await make_staff(live.settings, Role.NURSE)
    ear = await live.listener(nurse.token)
    hub = app_services(live.app).live
    manager = hub.sio.manager
    (eio_socket,) = hub.sio.eio.sockets.values()
    first = managers._packets(manager, "test:first", {}, "/")
    second = transport.websocket_frames(managers._packets(manager, "test:second", {}, "/"))
    assert transport.write_now(eio_socket, second) is True  # nothing ahead: written at once
    await ear.wait_for("test:second")
    eio_socket.queue.put_nowait(first[0])  # for its writer, which has not run yet
    assert transport.write_now(eio_socket, second) is False  # must not overtake it
    await hub.send("test:second", {}, [user_room(nurse.user.id)])
    await ear.wait_for("test:second", since=1)
    assert ear.names() == ["test:second", "test:first", "test:second"]


class _SlowReader:
    """A Socket.IO client over a raw websocket that reads only when told to: a tab on a
    stalled network, or an attacker who wants the server to buffer for it."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.ws = WSConnection(ConnectionType.CLIENT)
        self.sid = ""  # Engine.IO's
        self.pending: list[Any] = []  # events read and not yet taken

    @classmethod
    async def connect(cls, live: LiveServer, token: str) -> _SlowReader:
        url = urlsplit(live.base)
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # before connecting
        sock.setblocking(False)
        await asyncio.get_running_loop().sock_connect(sock, (url.hostname, url.port))
        reader, writer = await asyncio.open_connection(sock=sock, limit=4096)
        client = cls(reader, writer)
        target = "/socket.io/?EIO=4&transport=websocket"
        writer.write(client.ws.send(Request(host=url.netloc, target=target)))
        assert isinstance((await client.events(1))[0], AcceptConnection)
        opened = (await client.messages(1))[0]  # Engine.IO's open
        client.sid = json.loads(opened[1:])["sid"]
        writer.write(client.ws.send(TextMessage("40" + json.dumps({"token": token}))))
        assert (await client.messages(1))[0].startswith("40{")  # Socket.IO's connect answer
        return client

    async def events(self, count: int) -> list[Any]:
        """The next `count` websocket events, reading as needed."""
        async with asyncio.timeout(10):
            while len(self.pending) < count:
                data = await self.reader.read(65536)
                assert data, "the server closed the connection"
                self.ws.receive_data(data)
                self.pending.extend(self.ws.events())
        taken, self.pending = self.pending[:count], self.pending[count:]
        return taken

    async def messages(self, count: int) -> list[str]:
        """The next `count` text messages (whole: wsproto may hand one over in parts)."""
        texts: list[str] = []
        part = ""
        while len(texts) < count:
            (event,) = await self.events(1)
            if isinstance(event, TextMessage):
                part += event.data
                if event.message_finished:
                    texts.append(part)
                    part = ""
        return texts

    def close(self) -> None:
        self.writer.close()


async def test_a_client_that_stops_reading_gets_its_events_through_its_queue(
    live: LiveServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its events are not piled up in the server's socket buffer (Hypercorn's drain holds its
    writer back), the others' still go out at once, and it gets everything in order when it
    reads again."""
    nurse = await make_staff(live.settings, Role.NURSE)
    other = await make_staff(live.settings, Role.NURSE)
    slow = await _SlowReader.connect(live, nurse.token)
    ear = await live.listener(other.token)
    hub = app_services(live.app).live
    sent = 0
    try:
        slow_socket = hub.sio.eio.sockets[slow.sid]
        writes = _count_writes(monkeypatch)
        big = "x" * 64 * 1024
        rooms = [user_room(nurse.user.id), user_room(other.user.id)]
        # Until the slow one's socket stops taking them: far more than the kernel's buffers.
        for sent in range(1, 400):
            await hub.send("test:big", {"n": sent, "pad": big}, rooms)
            await ear.wait_for("test:big", since=len(ear.events))
            if slow_socket.queue.qsize() > 2:
                break
        assert slow_socket.queue.qsize() > 2, "the slow reader took everything"
        # Hypercorn's drain limit and a packet: not all of them.
        assert slow_socket.wire.buffered() <= 3 * (len(big) + 1024)
        written = writes.count(True)
        await hub.send("test:after", {"n": sent + 1}, rooms)
        await ear.wait_for("test:after")
        assert writes.count(True) == written + 1  # the other connection, at once
        numbers: list[int] = []
        while not numbers or numbers[-1] != sent + 1:
            for text in await slow.messages(1):
                if text.startswith("42"):
                    numbers.append(json.loads(text[2:])[1]["n"])
        assert numbers == list(range(1, sent + 2))  # all of them, in order
    finally:
        slow.close()


def test_frames_are_a_servers_websocket_frames() -> None:
    """Unmasked, unfragmented, a text frame for a text packet and a binary one for bytes."""
    text = engineio.packet.Packet(engineio.packet.MESSAGE, '2["a",{"b":"ü"}]')
    binary = engineio.packet.Packet(engineio.packet.MESSAGE, b"\x00\x01")
    payload = '42["a",{"b":"ü"}]'.encode()
    assert transport.websocket_frames([text]) == bytes([0x81, len(payload)]) + payload
    assert transport.websocket_frames([text, binary])[-4:] == bytes([0x82, 2, 0, 1])
    long = engineio.packet.Packet(engineio.packet.MESSAGE, "y" * 300)
    assert transport.websocket_frames([long])[:4] == bytes([0x81, 126, 1, 45])
