"""A live client below Socket.IO's own (`RawWebsocket`): Engine.IO and Socket.IO spoken by hand
over a real TCP connection, read only when told to (a tab on a stalled network, or an attacker),
and how to make one fall behind (`slow_and_other`, `stall`)."""

from __future__ import annotations

import asyncio
import json
import socket
from typing import Any
from urllib.parse import urlsplit

from wsproto import ConnectionType, WSConnection
from wsproto.events import AcceptConnection, CloseConnection, Request, TextMessage

from bff.live.events import user_room
from bff.services import app_services
from bff.users.models import Role
from tests.factories import make_staff
from tests.live.conftest import Listener, LiveServer


class RawWebsocket:
    """A websocket to /socket.io/ read only when told to: a tab on a stalled network, or an
    attacker speaking Engine.IO by hand."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.ws = WSConnection(ConnectionType.CLIENT)
        self.sid = ""  # Engine.IO's
        self.pending: list[Any] = []  # events read and not yet taken

    @classmethod
    async def open(cls, live: LiveServer, query: str = "", receive_buffer: int = 0) -> RawWebsocket:
        url = urlsplit(live.base)
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if receive_buffer:  # before connecting
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
        sock.setblocking(False)
        await asyncio.get_running_loop().sock_connect(sock, (url.hostname, url.port))
        reader, writer = await asyncio.open_connection(sock=sock, limit=4096)
        client = cls(reader, writer)
        target = f"/socket.io/?EIO=4&transport=websocket{query}"
        writer.write(client.ws.send(Request(host=url.netloc, target=target)))
        assert isinstance((await client.events(1))[0], AcceptConnection)
        return client

    @classmethod
    async def connect(cls, live: LiveServer, token: str, receive_buffer: int = 0) -> RawWebsocket:
        """Connected as the web app connects: Engine.IO's open, then Socket.IO's connect."""
        client = await cls.open(live, receive_buffer=receive_buffer)
        opened = (await client.messages(1))[0]  # Engine.IO's open
        client.sid = json.loads(opened[1:])["sid"]
        client.send("40" + json.dumps({"token": token}))
        assert (await client.messages(1))[0].startswith("40{")  # Socket.IO's connect answer
        return client

    def send(self, text: str) -> None:
        self.writer.write(self.ws.send(TextMessage(text)))

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


BIG = "x" * 64 * 1024


async def slow_and_other(live: LiveServer) -> tuple[RawWebsocket, Listener, list[str]]:
    """A nurse's connection that reads only when told to, another nurse's that reads, and
    the rooms of both."""
    nurse = await make_staff(live.settings, Role.NURSE)
    other = await make_staff(live.settings, Role.NURSE)
    slow = await RawWebsocket.connect(live, nurse.token, receive_buffer=4096)
    ear = await live.listener(other.token)
    return slow, ear, [user_room(nurse.user.id), user_room(other.user.id)]


async def stall(live: LiveServer, slow: RawWebsocket, ear: Listener, rooms: list[str]) -> int:
    """Send big events to `slow` (not reading) and `ear` until the slow one's queue holds more
    than 2 packets or it is gone; how many were sent."""
    hub = app_services(live.app).live
    sockets = hub.sio.eio.sockets
    for sent in range(1, 400):  # far more than the kernel's buffers
        await hub.send("test:big", {"n": sent, "pad": BIG}, rooms)
        await ear.wait_for("test:big", since=len(ear.events))
        if slow.sid not in sockets or sockets[slow.sid].queue.qsize() > 2:
            return sent
    raise AssertionError("the slow reader took everything")


async def read_to_end(client: RawWebsocket, within: float = 10) -> int:
    """Read what the server still sends until it ends the connection (a close frame, or the
    TCP connection ended); how many Socket.IO events came meanwhile."""
    events = 0
    part = ""
    async with asyncio.timeout(within):
        while True:
            data = await client.reader.read(65536)
            if not data:
                return events
            client.ws.receive_data(data)
            for event in client.ws.events():
                if isinstance(event, CloseConnection):
                    return events
                if isinstance(event, TextMessage):
                    part += event.data
                    if event.message_finished:
                        events += part.startswith("42")
                        part = ""
