"""What a live connection costs below Socket.IO, and the limits on it: the open-file limit
(each connection is an open file), the connections of a storm accepted a few at a turn of the
loop and the ready ones served a few at a turn (`TurnTakingLoop`) and set up a few at a time
(`HandshakeGate`), Hypercorn's websocket compression declined, Engine.IO's writers without an
extra task or timer per packet, an event's frame written at once to each recipient's websocket
while its writer has nothing to write (`Wire`, `write_now`), a client that leaves QUEUED_LIMIT
packets unread cut, and engineio's websocket ending without an exception (`_wait`) or anything
left in reference cycles (`_translate_request`; Hypercorn's connections let go of at their end,
`free_connections_at_their_end`, and each Wire when its websocket ends). And what a connection
that never signs in may cost (`Unconnected`): closed BFF_LIVE_CONNECT_SECONDS after it opened,
at most BFF_LIVE_UNCONNECTED_PER_ADDRESS of them per client address. Applied by
bff/live/server.py's `asgi_app` and bff/asgi.py; figures in docs/capacity.md.
"""

from __future__ import annotations

import asyncio
import collections
import json
import logging
import math
import resource
import select
import selectors
import sys
import time
from typing import Any
from urllib.parse import parse_qs

import engineio
import engineio.async_drivers.asgi
import engineio.async_socket
import engineio.exceptions
import engineio.packet
from hypercorn.asyncio.tcp_server import TCPServer
from hypercorn.protocol import ws_stream
from hypercorn.protocol.h11 import H11Protocol
from wsproto.connection import ConnectionState
from wsproto.extensions import PerMessageDeflate
from wsproto.frame_protocol import FrameProtocol

from bff import metrics
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
# New connections a turn of the loop accepts (asyncio accepts up to the listen backlog, 4,096
# here, at once, and sets all of them up in the next turn); the rest wait in the kernel's queue.
ACCEPTS_PER_TURN = 4
HANDSHAKE_SECONDS = 5.0  # a connection's turn ends after this long in any case
# Connections ready to read or write that a turn of the loop serves (the others the next turns,
# in the order they became ready): each is 0.1-0.3 ms of work, and a request waits for a few
# turns (its read, its handler's steps, its answer).
EVENTS_PER_TURN = 16
# Bytes a connection may have waiting in its socket's buffer for an event still to be written
# to it at once (`Wire`); beyond, the event waits in its Engine.IO queue behind the writer.
WIRE_BACKLOG = 16 * 1024
WIRE = "bff.wire"  # the scope's key for a websocket's Wire (HandshakeGate sets it)
# The scope's key for ending a websocket that upgrades a long-polling session (HandshakeGate
# sets it; `_upgrade_with_wire` keeps it on the session, bff/live/server.py calls it).
END_UPGRADE = "bff.end_upgrade"
SOCKETIO_PATH = "socket.io"  # where Socket.IO is served (bff/live/server.py's `asgi_app`)
# The scope's key for a new long-polling session's place among its address's `Unconnected`,
# taken by HandshakeGate before Engine.IO sees the request and handed to bff/live/server.py.
POLLING_PLACE = "bff.polling_place"
CONNECT = "40"  # Engine.IO's message (4) carrying Socket.IO's CONNECT (0), any namespace
CONNECT_ANSWERS = ("40", "44")  # the server's answer to it: CONNECT (connected), or CONNECT_ERROR
UPGRADE = "5"  # Engine.IO's UPGRADE: a long-polling session's websocket takes over
# The close code of a connection that did not connect in time (RFC 6455: policy violation).
CLOSE_UNCONNECTED = 1008
LATE = "Not signed in in time"  # its close reason (at most 123 bytes)
CROWDED = (
    "Too many live connections from this address are waiting to sign in. "
    "Please try again in a few seconds."
)
# Packets a websocket's queue may hold for a client that does not read them (its writer held
# back by Hypercorn's drain); one more and the connection is cut (its client, if it is still
# there, reconnects and refetches): otherwise a tab that stopped reading, or a client that
# answers pings and never reads, would have the server keep every event for it.
QUEUED_LIMIT = 1000


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


if hasattr(selectors, "EpollSelector"):  # Linux

    class _TurnSelector(selectors.EpollSelector):
        """epoll, answering at most EVENTS_PER_TURN ready connections at a time (the selectors
        module's own asks for all of them). The kernel keeps the others ready, first in line for
        the next turn, so each is served in the order it became ready."""

        def select(self, timeout: float | None = None) -> list[tuple[selectors.SelectorKey, int]]:
            if timeout is None:
                timeout = -1
            elif timeout <= 0:
                timeout = 0
            else:  # epoll's resolution is a millisecond: wait at least `timeout`
                timeout = math.ceil(timeout * 1e3) * 1e-3
            ready: list[tuple[selectors.SelectorKey, int]] = []
            try:
                fd_events = self._selector.poll(timeout, EVENTS_PER_TURN)  # type: ignore[attr-defined]
            except InterruptedError:
                return ready
            for fd, event in fd_events:
                events = 0
                if event & ~select.EPOLLIN:
                    events |= selectors.EVENT_WRITE
                if event & ~select.EPOLLOUT:
                    events |= selectors.EVENT_READ
                key = self._key_from_fd(fd)  # type: ignore[attr-defined]
                if key:
                    ready.append((key, events & key.events))
            return ready


class TurnTakingLoop(asyncio.SelectorEventLoop):
    """asyncio's event loop, accepting at most ACCEPTS_PER_TURN new connections at a turn.
    When the listening socket is readable, asyncio's loop accepts as many connections as the
    listen backlog allows and sets each one up in its next turn: in a storm hundreds at once,
    with every request in flight waiting behind them (`GET /api/auth/me` p99 0.7 s during a
    5,000-connection storm; about 50 ms taking turns). Accepting stays level-triggered, so the
    connections left in the kernel's queue are taken at the following turns.

    And at most EVENTS_PER_TURN connections with something to read (or room to write) are
    served at a turn (`_TurnSelector`, where there is epoll): in a storm the clients answer in
    bursts (150 connections' upgrade requests in one turn, 30-45 ms of work), and a request
    needs several turns of the loop, each that long (`GET /api/auth/me` waited 240-350 ms)."""

    def __init__(self) -> None:
        super().__init__(_TurnSelector() if hasattr(selectors, "EpollSelector") else None)

    def _accept_connection(  # type: ignore[no-untyped-def]
        self, protocol_factory, sock, sslcontext=None, server=None, backlog=100, *args, **kwargs
    ) -> None:
        super()._accept_connection(  # type: ignore[misc]
            protocol_factory,
            sock,
            sslcontext,
            server,
            min(backlog, ACCEPTS_PER_TURN),
            *args,
            **kwargs,
        )


class _TurnTakingPolicy(asyncio.DefaultEventLoopPolicy):
    def new_event_loop(self) -> asyncio.AbstractEventLoop:
        return TurnTakingLoop()


def accept_in_turns() -> None:
    """Event loops made from now on in this process are `TurnTakingLoop`s. bff/asgi.py calls it
    as Hypercorn's asyncio worker loads the app, before the worker makes its loop (a uvloop
    worker would not use it)."""
    asyncio.set_event_loop_policy(_TurnTakingPolicy())


class _Gate:
    """HANDSHAKES_AT_ONCE turns, handed from one connection to the next, first come first
    served; a set-up coming back from its session lookup (`stepping_aside`) goes ahead of the
    others waiting, so it is not left half done behind a storm."""

    def __init__(self, turns: int) -> None:
        self._free = turns
        self._returning: collections.deque[asyncio.Future[None]] = collections.deque()
        self._arriving: collections.deque[asyncio.Future[None]] = collections.deque()

    async def take(self, returning: bool = False) -> None:
        if self._free > 0:  # then nobody waits: a turn given back goes to a waiter first
            self._free -= 1
            return
        waiter = asyncio.get_running_loop().create_future()
        (self._returning if returning else self._arriving).append(waiter)
        try:
            await waiter
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled():  # handed over, then cancelled
                self.give_back()
            raise

    def give_back(self) -> None:
        for waiting in (self._returning, self._arriving):
            while waiting:
                waiter = waiting.popleft()
                if not waiter.done():  # not cancelled meanwhile
                    waiter.set_result(None)
                    return
        self._free += 1


class _Turn:
    """A connection's turn at the gate (bff/waits.py's CpuTurn): taken, given back (at most
    once per take), and given back after HANDSHAKE_SECONDS in any case; never taken once the
    connection has ended. Stepped aside from while the set-up waits for the database, and
    taken again after only if nothing ended it meanwhile (the answer sent, the connection
    closed, its time up)."""

    def __init__(self, gate: _Gate) -> None:
        self._gate = gate
        self._timer: asyncio.TimerHandle | None = None
        self._aside = False
        self.held = False
        self.ended = False

    async def take(self, returning: bool = False) -> None:
        if self.held or self.ended:
            return
        await self._gate.take(returning)
        if self.ended:  # the connection ended while it waited
            self._gate.give_back()
            return
        self.held = True
        self._timer = asyncio.get_running_loop().call_later(HANDSHAKE_SECONDS, self.give_back)

    def give_back(self) -> None:
        self._aside = False
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self.held:
            self.held = False
            self._gate.give_back()

    def step_aside(self) -> bool:
        """Give the turn back while the set-up waits for another server; whether it was held."""
        if not self.held:
            return False
        self.give_back()
        self._aside = True
        return True

    async def come_back(self) -> None:
        """After a `step_aside`: the turn again, unless something ended it meanwhile."""
        if self._aside:
            self._aside = False
            await self.take(returning=True)

    def end(self) -> None:
        self.ended = True
        self.give_back()


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
    sessions by bff/live/server.py."""

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


class _Waiting:
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


async def _refuse_crowded(scope: dict[str, Any], receive: Any, send: Any, retry_after: str) -> None:
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
    bff/live/server.py (`POLLING_PLACE`), which keeps it until the session connects or ends."""

    def __init__(self, app: Any, unconnected: Unconnected) -> None:
        self.app = app
        self._gate = _Gate(HANDSHAKES_AT_ONCE)
        self._unconnected = unconnected

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "websocket":
            if scope["type"] == "http" and _opens_polling(scope):
                await self._polling(scope, receive, send)
            else:
                await self.app(scope, receive, send)
            return
        wire = scope[WIRE] = Wire.of(send)
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
        waiting = _Waiting(self._unconnected, client_address(scope))
        if not waiting.admit():
            await _refuse_crowded(scope, receive, send, self._unconnected.retry_after())
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
        session, which bff/live/server.py closes if it has not connected in time: an Engine.IO
        close ends a websocket only once its client speaks again, so the session ends the
        websocket too, through `scope[END_UPGRADE]` (its pending receive answered as a
        disconnect)."""
        waiting = _Waiting(self._unconnected, client_address(scope))
        if not waiting.admit():
            await _refuse_crowded(scope, receive, send, self._unconnected.retry_after())
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
        turn = _Turn(self._gate)
        # 0: setting up until the open is sent; 1: waiting for the client's connect;
        # 2: answering it; 3: set up (or closed).
        phase = 0
        await turn.take()
        waiting = _Waiting(self._unconnected, client_address(scope))
        if not waiting.admit():
            try:
                await _refuse_crowded(scope, receive, send, self._unconnected.retry_after())
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
    `_poll` says when it waits with nothing). Anything unexpected below (a library changed
    under it) is logged and the event goes through the queue."""
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


def cut_if_stalled(socket: engineio.async_socket.AsyncSocket) -> bool:
    """Cut a websocket whose client has left QUEUED_LIMIT packets unread; True if cut (the
    packet for it is then not queued)."""
    wire: Wire | None = getattr(socket, "wire", None)
    if wire is None or socket.queue.qsize() < QUEUED_LIMIT:
        return False
    log.warning("A live connection left %d events unread: it is closed", QUEUED_LIMIT)
    wire.cut()
    return True


class _NoCompression(PerMessageDeflate):
    """permessage-deflate, declined whenever a client offers it."""

    def accept(self, offer: str) -> None:
        return None


async def _poll(self: engineio.async_socket.AsyncSocket) -> list[engineio.packet.Packet]:
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


async def _upgrade_with_wire(
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


async def _wait(self: Any) -> Any:
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


async def _translate_request(scope: dict[str, Any], receive: Any, send: Any) -> dict[str, Any]:
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


def lighter_engineio_sockets() -> None:
    """Every Engine.IO connection's writer polls with `_poll`, a websocket's socket keeps its
    `Wire` for `write_now`, a websocket's end is read without an exception (`_wait`), and a
    request's environ is made without a class of its own (`_translate_request`)."""
    setattr(engineio.async_socket.AsyncSocket, "poll", _poll)  # noqa: B010
    setattr(engineio.async_socket.AsyncSocket, "_upgrade_websocket", _upgrade_with_wire)  # noqa: B010
    setattr(engineio.async_drivers.asgi.WebSocket, "wait", _wait)  # noqa: B010
    engineio.async_drivers.asgi._async["translate_request"] = _translate_request


_tcp_run = TCPServer.run


def _nothing_to_read() -> None:
    """A closed transport's read callback (it reads nothing more: its reader is removed)."""


class _Ended:
    """An ended connection's protocol: it handles nothing (a late idle timeout's close, say)."""

    __slots__ = ()

    async def handle(self, event: object) -> None:
        return None


_ENDED = _Ended()


async def _run_then_let_go(self: TCPServer) -> None:
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


def free_connections_at_their_end() -> None:
    """Hypercorn's connections break their reference cycles when they end (`_run_then_let_go`)."""
    setattr(TCPServer, "run", _run_then_let_go)  # noqa: B010


def decline_websocket_compression() -> None:
    """Hypercorn accepts permessage-deflate whenever a client offers it, which every browser
    does, and has no setting for it (pgjones/hypercorn#307): each connection then holds a zlib
    compressor and decompressor, about 260 KB, which was most of a live connection's memory,
    for Socket.IO frames of a few dozen bytes that compression does not shorten. Hypercorn
    makes its handshake's extension list from this module-level name at every connection."""
    setattr(ws_stream, "PerMessageDeflate", _NoCompression)  # noqa: B010 - not exported
