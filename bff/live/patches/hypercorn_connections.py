"""Hypercorn's connections, lighter: websocket compression declined (`NoCompression`), and each
connection's reference cycles broken when it ends (`run_then_let_go`). Each replaces
Hypercorn's code: see the declarations in __init__.py.
"""

from __future__ import annotations

from hypercorn.asyncio.tcp_server import TCPServer
from wsproto.extensions import PerMessageDeflate


class NoCompression(PerMessageDeflate):
    """permessage-deflate, declined whenever a client offers it. Hypercorn accepts it whenever
    a client offers it, which every browser does, and has no setting for it
    (pgjones/hypercorn#307): each connection then holds a zlib compressor and decompressor
    (about 95 KB a connection: 43.7 against 138.3 KB, docs/capacity.md), for Socket.IO frames
    of a few dozen bytes that compression does not shorten. Hypercorn makes
    its handshake's extension list from its module-level name `PerMessageDeflate` at every
    connection, which the no-compression patch sets to this."""

    def accept(self, offer: str) -> None:
        return None


_tcp_run = TCPServer.run


def _nothing_to_read() -> None:
    """A closed transport's read callback (it reads nothing more: its reader is removed)."""


class _Ended:
    """An ended connection's protocol: it handles nothing (a late idle timeout's close, say)."""

    __slots__ = ()

    async def handle(self, event: object) -> None:
        return None


_ENDED = _Ended()


async def run_then_let_go(self: TCPServer) -> None:
    """Hypercorn's connection, then its two reference cycles broken once it has ended: the
    TCPServer and its protocol (whose `send` is the TCPServer's bound `protocol_send`), and
    asyncio's transport and its own bound read callback. Every ended connection (its
    TCPServer, protocol objects, transport and streams: about 35 objects) is then freed by
    reference counting, not left for the garbage collector's full collection
    (bff/collector.py), which walks every live connection."""
    try:
        await _tcp_run(self)
    finally:
        transport = getattr(self.writer, "transport", None)
        if transport is not None and hasattr(transport, "_read_ready_cb"):
            transport._read_ready_cb = _nothing_to_read
        self.protocol = _ENDED  # type: ignore[assignment]
