"""What a live connection that never signs in may cost (`Unconnected`): closed
BFF_LIVE_CONNECT_SECONDS after it opened, at most BFF_LIVE_UNCONNECTED_PER_ADDRESS of them per
client address, the others refused (429) with a readable message. Counted by HandshakeGate
(bff/live/transport.py) for websockets and by bff/live/polling.py for long-polling sessions.
"""

from __future__ import annotations

import json
import math
from typing import Any

from bff import metrics

# The close code of a connection that did not connect in time (RFC 6455: policy violation).
CLOSE_UNCONNECTED = 1008
LATE = "Not signed in in time"  # its close reason (at most 123 bytes)
CROWDED = (
    "Too many live connections from this address are waiting to sign in. "
    "Please try again in a few seconds."
)


class Unconnected:
    """This process's live connections open at Engine.IO and not connected at Socket.IO (no
    CONNECT sent yet, or refused), per client address: the address as the throttles see it
    (Hypercorn's proxy-header handling sets it behind a proxy, BFF_TRUSTED_PROXY_HOPS).

    Each costs its client nothing and this process a file descriptor and about 40 KB, for as long
    as it answers pings: so each is closed `seconds` after it opened (a connection whose CONNECT
    is being answered is left to finish), and an address with `per_address` of them open gets
    no more (429). A connection counts only while its client is to speak: a storm's CONNECTs
    waiting for their turn (HandshakeGate) are the server's to answer, so a site behind one NAT
    reconnecting at once is not refused for the server's slowness. Websockets are counted by
    HandshakeGate (one upgrading a long-polling session until its upgrade is done), long-polling
    sessions by bff/live/polling.py."""

    def __init__(self, per_address: int, seconds: float) -> None:
        self.per_address = per_address
        self.seconds = seconds
        self._open: dict[str, int] = {}  # address -> its connections counted now

    def count(self, address: str) -> int:
        """How many of this address's connections are counted now."""
        return self._open.get(address, 0)

    def admit(self, address: str) -> bool:
        """Count one more connection of address, unless it has `per_address` already (then it
        is refused: `metrics.live_unconnected("crowded")`)."""
        if self._open.get(address, 0) >= self.per_address:
            metrics.live_unconnected("crowded")
            return False
        self.hold(address)
        return True

    def hold(self, address: str) -> None:
        """Count one more connection of address, whatever the limit (one refused at Socket.IO:
        its client is to speak again)."""
        self._open[address] = self._open.get(address, 0) + 1

    def release(self, address: str) -> None:
        """One connection of address counted no longer."""
        left = self._open[address] - 1
        if left:
            self._open[address] = left
        else:
            del self._open[address]

    def retry_after(self) -> str:
        """Seconds until an address's connections counted now have all ended, as Retry-After."""
        return str(math.ceil(self.seconds))


class Waiting:
    """One connection's place in `Unconnected` (held at most once at a time)."""

    __slots__ = ("_address", "_unconnected", "held")

    def __init__(self, unconnected: Unconnected, address: str) -> None:
        self._unconnected = unconnected
        self._address = address
        self.held = False

    def admit(self) -> bool:
        self.held = self._unconnected.admit(self._address)
        return self.held

    def hold(self) -> None:
        if not self.held:
            self.held = True
            self._unconnected.hold(self._address)

    def release(self) -> None:
        if self.held:
            self.held = False
            self._unconnected.release(self._address)


def client_address(scope: dict[str, Any]) -> str:
    """A connection's client address as bff/request_context.py's `client_address` reads it for
    a request (Quart's remote_addr is the scope's client)."""
    client = scope.get("client")
    return str(client[0])[:64] if client else ""


async def refuse_crowded(scope: dict[str, Any], receive: Any, send: Any, retry_after: str) -> None:
    """Answer a new live connection with 429, Retry-After and a readable message: a websocket's
    upgrade request (a server without ASGI's websocket HTTP response: with its own refusal, a
    403), or a long-polling session's first request."""
    body = json.dumps({"message": CROWDED}).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        (b"retry-after", retry_after.encode()),
    ]
    if scope["type"] == "http":
        await send({"type": "http.response.start", "status": 429, "headers": headers})
        await send({"type": "http.response.body", "body": body})
        return
    await receive()  # websocket.connect
    if "websocket.http.response" not in scope.get("extensions", {}):
        await send({"type": "websocket.close", "code": CLOSE_UNCONNECTED})
        return
    await send({"type": "websocket.http.response.start", "status": 429, "headers": headers})
    await send({"type": "websocket.http.response.body", "body": body})
