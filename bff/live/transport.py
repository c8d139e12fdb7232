"""What a live connection costs below Socket.IO, and the limits on it: the open-file limit (each
connection is an open file), and `HandshakeGate`, the ASGI layer in front of Socket.IO: a
storm's connections set up one at a time on the CPU (bff/live/turns.py), and a connection that
never signs in closed after BFF_LIVE_CONNECT_SECONDS, at most BFF_LIVE_UNCONNECTED_PER_ADDRESS
of them per client address (bff/live/unconnected.py). Each websocket's `Wire` is put in its
scope for the live tuning's direct writes (bff/live/patches/). Applied by bff/live/server.py's
`asgi_app`; figures in docs/capacity.md.
"""

from __future__ import annotations

import asyncio
import logging
import resource
from typing import Any
from urllib.parse import parse_qs

from bff import metrics
from bff.live.patches.engineio_sockets import END_UPGRADE
from bff.live.patches.wire import WIRE, Wire
from bff.live.turns import Gate, Turn
from bff.live.unconnected import (
    CLOSE_UNCONNECTED,
    LATE,
    Unconnected,
    Waiting,
    client_address,
    refuse_crowded,
)
from bff.waits import cpu_turn

log = logging.getLogger(__name__)

# Every live connection is an open file. systemd starts services with a soft limit of 1,024
# open files (the hard limit is far higher), which 2,000 signed-in staff would exceed: each
# process raises its soft limit to the hard one, up to this.
OPEN_FILES_WANTED = 65536
# Live connections the server works on at once in their set-up, per process (a turn covers
# the CPU only: not held while the client is to answer or the database looks the session up,
# HandshakeGate). A storm is CPU-bound (about 0.8 ms a connection): one at a time keeps the
# worker busy and each turn of the loop short, so requests go on being answered (5,000 at
# once, side by side on 2026-12-02: /api/auth/me's median 13-19 ms with 4, 6-8 with 1, p99
# 42-46 and 35-46 ms; the storm 4.2-4.3 and 3.9-4.6 s; docs/capacity.md).
HANDSHAKES_AT_ONCE = 1
SOCKETIO_PATH = "socket.io"  # where Socket.IO is served (bff/live/server.py's `asgi_app`)
# The scope's key for a new long-polling session's place among its address's `Unconnected`,
# taken by HandshakeGate before Engine.IO sees the request and handed to bff/live/server.py.
POLLING_PLACE = "bff.polling_place"
CONNECT = "40"  # Engine.IO's message (4) carrying Socket.IO's CONNECT (0), any namespace
CONNECT_ANSWERS = ("40", "44")  # the server's answer to it: CONNECT (connected), or CONNECT_ERROR
UPGRADE = "5"  # Engine.IO's UPGRADE: a long-polling session's websocket takes over


def raise_open_file_limit() -> int:
    """Raise this process's soft open-file limit towards its hard limit; return the limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = OPEN_FILES_WANTED if hard == resource.RLIM_INFINITY else min(hard, OPEN_FILES_WANTED)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
        except (ValueError, OSError):
            return soft
        return wanted
    return soft


def _opens_polling(scope: dict[str, Any]) -> bool:
    """Whether an HTTP request asks Engine.IO for a new long-polling session (a GET under the
    Socket.IO path naming no session; Engine.IO answers any other with what it has)."""
    path = scope.get("path", "")
    if scope.get("method") != "GET" or not (path + "/").startswith(f"/{SOCKETIO_PATH}/"):
        return False
    return not _upgrading(scope)


class HandshakeGate:
    """At most HANDSHAKES_AT_ONCE live connections of this process set up on the CPU at once,
    the others waiting their turn, first come first served. Without it, a storm (every client
    of a restarted instance at once) advances all its handshakes together, so none finishes
    before nearly all of them have had most of their CPU, and clients reach their time limit
    and retry, adding to the storm.

    A connection holds a turn only while the server works on it, never while it waits for the
    client (so a few clients that open a websocket and say nothing do not stop everyone else's)
    or for the database (its session lookup steps aside: bff/waits.py): from its arrival until
    Engine.IO's open is sent (the websocket accept, the Engine.IO handshake), then again from
    the client's Socket.IO connect until the answer to it (connected or refused) is sent (the
    session check, the rooms): any other message (a pong, a noop) takes no turn, or one such
    packet would hold the turn for HANDSHAKE_SECONDS. A turn ends when the connection closes,
    or after HANDSHAKE_SECONDS, whichever is first. A websocket upgrading a long-polling
    connection takes no turn (`_upgrading`).

    And a websocket is `Unconnected` while its client is to connect at Socket.IO: from its first
    turn (where an address with too many such connections is refused, 429) until its CONNECT
    arrives, and again once a CONNECT is refused. Until it is connected it has until
    `Unconnected.seconds` after its accept: a receive waiting past then is answered as if the
    client had gone (the connection's own tasks end it, nothing of it left behind), and the
    close sent says why (1008). A CONNECT being answered has no limit meanwhile; refused, the
    limit is back (at once if past). A new long-polling session's first request is refused the
    same way (429, Retry-After) before Engine.IO sees it; admitted, its place is handed to
    bff/live/polling.py (`POLLING_PLACE`), which keeps it until the session connects or ends."""

    def __init__(self, app: Any, unconnected: Unconnected, wires: bool = True) -> None:
        self.app = app
        self._gate = Gate(HANDSHAKES_AT_ONCE)
        self._unconnected = unconnected
        self._wires = wires  # a websocket's Wire in its scope (the websocket-wire patch)

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "websocket":
            if scope["type"] == "http" and _opens_polling(scope):
                await self._polling(scope, receive, send)
            else:
                await self.app(scope, receive, send)
            return
        wire = scope[WIRE] = Wire.of(send) if self._wires else None
        try:
            if _upgrading(scope):
                await self._upgrade(scope, receive, send)
            else:
                await self._set_up(scope, receive, send)
        finally:
            # The connection has ended: its Wire lets go of Hypercorn's state, and the scope
            # of its Wire (the scope, the Wire and the websocket's stream would be a cycle),
            # so reference counting frees the connection now, although Engine.IO's socket
            # lives on for up to a ping interval (its ping task sleeps) and holds the Wire.
            scope.pop(WIRE, None)
            scope.pop(END_UPGRADE, None)
            if wire is not None:
                wire.release()

    async def _polling(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        """A request for a new long-polling session: refused as a websocket is when its address
        has too many connections `Unconnected`; else its place is held for Engine.IO's session
        (given back here unless bff/live/server.py took it: the request made no session)."""
        waiting = Waiting(self._unconnected, client_address(scope))
        if not waiting.admit():
            await refuse_crowded(scope, receive, send, self._unconnected.retry_after())
            return
        scope[POLLING_PLACE] = waiting
        try:
            await self.app(scope, receive, send)
        finally:
            if scope.pop(POLLING_PLACE, None) is not None:
                waiting.release()

    async def _upgrade(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        """A websocket upgrading a long-polling session: no turn (`_upgrading`), `Unconnected`
        until its client's UPGRADE arrives, and until then its client has `Unconnected.seconds`
        from its accept (engineio waits for the probe without a limit). Then it carries its
        session, which bff/live/polling.py closes if it has not connected in time: an Engine.IO
        close ends a websocket only once its client speaks again, so the session ends the
        websocket too, through `scope[END_UPGRADE]` (its pending receive answered as a
        disconnect)."""
        waiting = Waiting(self._unconnected, client_address(scope))
        if not waiting.admit():
            await refuse_crowded(scope, receive, send, self._unconnected.retry_after())
            return
        loop = asyncio.get_running_loop()
        deadline: float | None = None  # set at the accept
        upgraded = ended = late = False
        limit: asyncio.Timeout | None = None  # the time limit of the receive waiting now

        def end() -> None:
            nonlocal ended
            ended = True
            if limit is not None:
                limit.reschedule(loop.time())

        scope[END_UPGRADE] = end

        async def gated_receive() -> dict[str, Any]:
            nonlocal upgraded, late, limit
            if not ended:
                try:
                    async with asyncio.timeout_at(None if upgraded else deadline) as limit:
                        message: dict[str, Any] = await receive()
                except TimeoutError:
                    if not (ended or upgraded):
                        metrics.live_unconnected("late")
                else:
                    if (
                        not upgraded
                        and message["type"] == "websocket.receive"
                        and _says(message, UPGRADE)
                    ):
                        upgraded = True
                        waiting.release()
                    return message
                finally:
                    limit = None
            late = True
            return {"type": "websocket.disconnect", "code": CLOSE_UNCONNECTED}

        closed = False  # the websocket's close sent

        async def closing(message: dict[str, Any]) -> None:
            nonlocal deadline, closed
            kind = message["type"]
            if kind == "websocket.close":
                closed = True
                if late:
                    message = {"type": kind, "code": CLOSE_UNCONNECTED, "reason": LATE}
            await send(message)
            if kind == "websocket.accept" and deadline is None:
                deadline = loop.time() + self._unconnected.seconds

        try:
            await self.app(scope, gated_receive, closing)
            if late and not closed:  # engineio ends a failed upgrade without a close
                await send({"type": "websocket.close", "code": CLOSE_UNCONNECTED, "reason": LATE})
        finally:
            waiting.release()

    async def _set_up(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        turn = Turn(self._gate)
        # 0: setting up until the open is sent; 1: waiting for the client's connect;
        # 2: answering it; 3: set up (or closed).
        phase = 0
        await turn.take()
        waiting = Waiting(self._unconnected, client_address(scope))
        if not waiting.admit():
            try:
                await refuse_crowded(scope, receive, send, self._unconnected.retry_after())
            finally:
                turn.end()
            return
        loop = asyncio.get_running_loop()
        deadline: float | None = None  # set at the accept: its client's time to connect
        answering = connected = late = False
        limit: asyncio.Timeout | None = None  # the time limit of the receive waiting now

        async def gated_receive() -> dict[str, Any]:
            nonlocal phase, answering, late, limit
            if connected or deadline is None:
                message: dict[str, Any] = await receive()
            else:
                try:
                    async with asyncio.timeout_at(None if answering else deadline) as limit:
                        message = await receive()
                except TimeoutError:
                    late = True
                    metrics.live_unconnected("late")
                    return {"type": "websocket.disconnect", "code": CLOSE_UNCONNECTED}
                finally:
                    limit = None
            if (
                not (connected or answering)
                and message["type"] == "websocket.receive"
                and _says(message, CONNECT)
            ):
                answering = True
                waiting.release()
                if phase == 1:
                    phase = 2
                    await turn.take()
            return message

        async def counted(message: dict[str, Any]) -> None:
            nonlocal phase, answering, connected, deadline
            kind = message["type"]
            if late and kind == "websocket.close":
                message = {"type": kind, "code": CLOSE_UNCONNECTED, "reason": LATE}
            try:
                await send(message)
            finally:
                if kind == "websocket.accept" and deadline is None:
                    deadline = loop.time() + self._unconnected.seconds
                elif answering and kind == "websocket.send" and _says(message, CONNECT_ANSWERS):
                    answering = False
                    if _says(message, CONNECT):  # connected
                        connected = True
                    else:  # refused: its client is to speak again, in the time it had
                        waiting.hold()
                        if limit is not None:
                            limit.reschedule(deadline)
                if phase != 3:
                    kind = message["type"]
                    if kind == "websocket.close":
                        phase = 3
                        turn.give_back()
                    elif kind == "websocket.send" and (
                        phase == 0 or (phase == 2 and _says(message, CONNECT_ANSWERS))
                    ):
                        phase += 1
                        turn.give_back()

        # For the session lookup of Socket.IO's connect handler, which runs in this task (the
        # connection's other tasks copy the context too: none of them looks a session up).
        cpu_turn.set(turn)
        try:
            await self.app(scope, gated_receive, counted)
        finally:
            turn.end()
            waiting.release()


def _says(message: dict[str, Any], starts: str | tuple[str, ...]) -> bool:
    """Whether a websocket message is text beginning with one of `starts`."""
    text = message.get("text")
    return isinstance(text, str) and text.startswith(starts)


def _upgrading(scope: dict[str, Any]) -> bool:
    """Whether a websocket upgrades a long-polling connection (it names the Engine.IO session):
    set up already, and the client speaks first (its probe, then the upgrade), so it takes no
    turn (holding one while the client is to speak would stop everyone else's set-up)."""
    query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
    return bool(query.get("sid"))
