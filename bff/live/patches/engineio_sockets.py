"""python-engineio's sockets, lighter: a connection's writer without a task or timer per packet
(`poll`), a websocket's Wire kept on its socket (`upgrade_with_wire`), a websocket's end read
without an exception (`wait`), and a request's environ made without a class of its own
(`translate_request`). Each replaces engineio's private code: see the declarations in
__init__.py.
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any

import engineio.async_drivers.asgi
import engineio.async_socket
import engineio.exceptions
import engineio.packet

from bff.live.patches.wire import WIRE

# The scope's key for ending a websocket that upgrades a long-polling session (HandshakeGate
# sets it; `upgrade_with_wire` keeps it on the session, bff/live/server.py calls it).
END_UPGRADE = "bff.end_upgrade"


async def poll(self: engineio.async_socket.AsyncSocket) -> list[engineio.packet.Packet]:
    """engineio's AsyncSocket.poll (what a connection's writer waits on), lighter: a
    websocket's writer waits on its queue without a time limit, and long-polling's wait has
    one without the task `asyncio.wait_for` makes around the queue's get.

    The websocket writer's limit (a timer and its context, made and cancelled for every packet
    sent, then kept until the next: thousands of objects lasting long enough to reach the
    garbage collector's oldest generation at every fan-out) guards nothing: the connection's
    reader ends after the same time without a message from the client (engineio's own
    `wait_for` on the websocket) and then always wakes the writer with None, and a server's
    close wakes it with its CLOSE packet."""
    try:
        if self.upgraded:
            self.writer_waits = True  # for write_now: nothing taken and not yet written
            try:
                packets = [await self.queue.get()]
            finally:
                self.writer_waits = False
        else:
            async with asyncio.timeout(self.server.ping_interval + self.server.ping_timeout):
                packets = [await self.queue.get()]
        self.queue.task_done()
    except (TimeoutError, asyncio.CancelledError):
        raise engineio.exceptions.QueueEmpty() from None
    if packets == [None]:
        return []
    while True:
        try:
            pkt = self.queue.get_nowait()
        except asyncio.QueueEmpty:
            break
        self.queue.task_done()
        if pkt is None:
            self.queue.put_nowait(None)
            break
        packets.append(pkt)
    return packets


_upgrade_websocket = engineio.async_socket.AsyncSocket._upgrade_websocket


async def upgrade_with_wire(
    self: engineio.async_socket.AsyncSocket, environ: dict[str, Any]
) -> Any:
    """engineio's upgrade to a websocket, keeping the connection's Wire on the socket for a
    connection made over a websocket from the start (a long-polling client's upgrade goes on
    through the queue: a second upgrade request must not take the first's place); for a
    long-polling session, how to end each websocket that tried to upgrade it
    (`end_upgrades`, HandshakeGate's END_UPGRADE: bff/live/server.py ends them with it)."""
    scope = environ["asgi.scope"]
    if not self.connected and getattr(self, "wire", None) is None:
        self.wire = scope.get(WIRE)
    elif self.connected and (end := scope.get(END_UPGRADE)) is not None:
        if getattr(self, "end_upgrades", None) is None:
            self.end_upgrades = []
        self.end_upgrades.append(end)
    return await _upgrade_websocket(self, environ)


async def wait(self: Any) -> Any:
    """engineio's ASGI WebSocket.wait, answering None (what its handler takes as "closed by
    the client") when the connection ends, where engineio raises OSError: the exception, its
    traceback and the handler's frames formed a cycle with the task that waited, kept for the
    garbage collector at every connection's end."""
    event = await self.asgi_receive()
    if event["type"] != "websocket.receive":
        return None
    if event.get("bytes") is not None:
        return event["bytes"]
    return event.get("text")


class _Body:
    """A request's body as engineio reads it (`environ["wsgi.input"]`): its first ASGI event,
    then the rest from `receive` at the first read (engineio's own, without its class)."""

    __slots__ = ("event", "payload", "receive")

    def __init__(self, event: dict[str, Any], receive: Any) -> None:
        self.event = event
        self.receive = receive
        self.payload: bytes | None = None

    async def read(self, length: int | None = None) -> bytes:
        if self.payload is None and self.event["type"] == "http.request":
            self.payload = self.event.get("body") or b""
            while self.event.get("more_body"):
                self.event = await self.receive()
                if self.event["type"] == "http.request" and (
                    length is None or len(self.payload) < length
                ):
                    self.payload += self.event.get("body") or b""
        payload = self.payload or b""
        if length is None:
            self.payload = b""
            return payload
        self.payload = payload[length:]
        return payload[:length]


async def translate_request(scope: dict[str, Any], receive: Any, send: Any) -> dict[str, Any]:
    """engineio's ASGI translate_request (the WSGI-like environ of a request or websocket),
    without the class it defines inside it at every call: a class is always in a reference
    cycle (its __mro__ holds it), and this one's methods held the request's `receive`, so every
    closed connection left its receive, HandshakeGate's state and the class (17 objects) for the
    garbage collector's full collection, which walks every live connection (about 0.85 s at
    5,000, bff/collector.py). The same environ otherwise."""
    event = await receive()
    if event["type"] not in ("http.request", "websocket.connect"):
        return {}
    raw_uri = scope["path"]
    query_string = ""
    if scope.get("query_string"):
        try:
            query_string = scope["query_string"].decode("utf-8")
        except UnicodeDecodeError:
            pass
        else:
            raw_uri += "?" + query_string
    environ: dict[str, Any] = {
        "wsgi.input": _Body(event, receive),
        "wsgi.errors": sys.stderr,
        "wsgi.version": (1, 0),
        "wsgi.async": True,
        "wsgi.multithread": False,
        "wsgi.multiprocess": False,
        "wsgi.run_once": False,
        "SERVER_SOFTWARE": "asgi",
        "REQUEST_METHOD": scope.get("method", "GET"),
        "PATH_INFO": scope["path"],
        "QUERY_STRING": query_string,
        "RAW_URI": raw_uri,
        "SCRIPT_NAME": "",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "REMOTE_ADDR": "127.0.0.1",
        "REMOTE_PORT": "0",
        "SERVER_NAME": "asgi",
        "SERVER_PORT": "0",
        "asgi.receive": receive,
        "asgi.send": send,
        "asgi.scope": scope,
    }
    for raw_name, raw_value in scope["headers"]:
        try:
            name = raw_name.upper().decode("utf-8")
            value = raw_value.decode("utf-8")
        except UnicodeDecodeError:
            continue  # a header that cannot be decoded is skipped
        if name == "CONTENT-TYPE":
            environ["CONTENT_TYPE"] = value
            continue
        if name == "CONTENT-LENGTH":
            environ["CONTENT_LENGTH"] = value
            continue
        key = "HTTP_" + name.replace("-", "_")
        environ[key] = f"{environ[key]},{value}" if key in environ else value
    environ["wsgi.url_scheme"] = environ.get("HTTP_X_FORWARDED_PROTO", "http")
    return environ
