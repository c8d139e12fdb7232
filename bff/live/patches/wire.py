"""A live websocket's TCP connection below Hypercorn's ASGI layer (`Wire`): an event's frame
written at once to each recipient's socket while its writer has nothing to write (`write_now`),
and a stalled client's connection aborted at once (`cut`; bff/live/delivery.py decides when,
with or without this patch). It reads Hypercorn's private connection state and engineio's
socket: see the patch's declaration in __init__.py (websocket-wire).
"""

from __future__ import annotations

import logging
import time
from typing import Any

import engineio.async_socket
import engineio.packet
from hypercorn.asyncio.tcp_server import TCPServer
from hypercorn.protocol import ws_stream
from hypercorn.protocol.h11 import H11Protocol
from wsproto.connection import ConnectionState
from wsproto.frame_protocol import FrameProtocol

log = logging.getLogger(__name__)

# Bytes a connection may have waiting in its socket's buffer for an event still to be written
# to it at once (`Wire`); beyond, the event waits in its Engine.IO queue behind the writer.
WIRE_BACKLOG = 16 * 1024
WIRE = "bff.wire"  # the scope's key for a websocket's Wire (HandshakeGate sets it)


class Wire:
    """A live websocket's TCP connection below Hypercorn's ASGI layer: an event's frame,
    encoded once for all its recipients, written to each connection's socket at once, by the
    task delivering it. Through Engine.IO's queue, each recipient's writer task wakes for it
    and its frame is encoded again per connection (about two thirds of a fan-out's CPU).

    Written only when nothing is ahead of it, so each connection gets its packets in order:
    Hypercorn's websocket open (not closing), nothing of the connection's own being written
    (its send lock free) and at most WIRE_BACKLOG bytes in its socket's buffer (a slow reader's
    events wait in its queue, and Hypercorn's drain applies to them); the Engine.IO socket's
    checks are `write_now`'s."""

    __slots__ = ("_stream", "_tcp")

    def __init__(self, stream: ws_stream.WSStream, tcp: TCPServer) -> None:
        self._stream: ws_stream.WSStream | None = stream
        self._tcp: TCPServer | None = tcp

    def release(self) -> None:
        """The connection has ended: hold nothing of it (nothing is written or cut from now)."""
        self._stream = None
        self._tcp = None

    @classmethod
    def of(cls, send: Any) -> Wire | None:
        """The Wire under Hypercorn's ASGI `send` of a websocket, None for any other server
        (then every event goes through Engine.IO's queue): an HTTP/1.1 websocket's frames are
        the TCP connection's bytes (over HTTP/2 they would be framed again)."""
        stream = getattr(send, "__self__", None)
        if not isinstance(stream, ws_stream.WSStream):
            return None
        protocol = getattr(stream.send, "__self__", None)
        if not isinstance(protocol, H11Protocol):
            return None
        tcp = getattr(protocol.send, "__self__", None)
        return cls(stream, tcp) if isinstance(tcp, TCPServer) else None

    def write(self, frames: bytes) -> bool:
        """Write `frames` now if nothing is ahead of them; False if they must wait their turn."""
        stream, tcp = self._stream, self._tcp
        if stream is None or tcp is None:
            return False
        if stream.closed or stream.state is not ws_stream.ASGIWebsocketState.CONNECTED:
            return False
        if stream.connection.state is not ConnectionState.OPEN or tcp.send_lock.locked():
            return False
        transport = tcp.writer.transport
        if transport.is_closing() or transport.get_write_buffer_size() > WIRE_BACKLOG:
            return False
        transport.write(frames)
        return True

    def cut(self) -> None:
        """End the TCP connection at once (its buffers dropped): Hypercorn, then Engine.IO and
        Socket.IO, see it close as if the client had gone."""
        if self._tcp is not None:
            self._tcp.writer.transport.abort()

    def buffered(self) -> int:
        """Bytes waiting in the connection's socket buffer (written, not yet sent)."""
        return 0 if self._tcp is None else int(self._tcp.writer.transport.get_write_buffer_size())


def websocket_frames(packets: list[engineio.packet.Packet]) -> bytes:
    """The websocket frames (a server's: unmasked, uncompressed) of Engine.IO packets."""
    return b"".join(
        FrameProtocol(client=False, extensions=[]).send_data(p.encode()) for p in packets
    )


def write_now(socket: engineio.async_socket.AsyncSocket, frames: bytes) -> bool:
    """Write `frames` (`websocket_frames`) to an Engine.IO socket's websocket at once, if it has
    one and nothing waits ahead of them; False if they must go through `socket.send`: a
    long-polling or upgraded-from-polling client, a socket closing or gone silent (its send
    closes it), or its writer not idle (packets queued for it, or taken and not yet written:
    the writer-poll patch's `poll` says when it waits with nothing). Anything unexpected below
    (a library changed under it) is logged and the event goes through the queue."""
    wire: Wire | None = getattr(socket, "wire", None)
    if wire is None or socket.closing or socket.closed:
        return False
    if not getattr(socket, "writer_waits", False) or not socket.queue.empty():
        return False
    if socket.last_ping and time.time() - socket.last_ping > socket.server.ping_timeout:
        return False
    try:
        return wire.write(frames)
    except Exception:
        log.warning("Writing a live event to a websocket failed; it is queued", exc_info=True)
        return False


def cut(socket: engineio.async_socket.AsyncSocket) -> bool:
    """Abort the TCP connection of an Engine.IO socket that has a Wire (its buffers dropped:
    Hypercorn, then Engine.IO and Socket.IO, see it close as if the client had gone); False
    without one (the stock libraries, a long-polling client)."""
    wire: Wire | None = getattr(socket, "wire", None)
    if wire is None:
        return False
    wire.cut()
    return True
