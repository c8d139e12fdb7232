"""A storm's connections are accepted a few at a turn of the event loop (bff/live/transport.py's
`TurnTakingLoop`), so requests in flight are not held behind hundreds of new connections set
up in one turn; and the worker Hypercorn starts from bff/asgi.py runs on that loop."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

from hypercorn.asyncio import serve
from hypercorn.config import Config
from wsproto import ConnectionType, WSConnection
from wsproto.events import AcceptConnection, CloseConnection, Request

from bff.live import transport
from tools.devserver import free_port

REPO = Path(__file__).resolve().parents[2]
STORM = 10


async def _storm(accepted: list[asyncio.BaseTransport]) -> list[int]:
    """Connect STORM clients at once; how many connections each turn of the loop set up."""

    class Counted(asyncio.Protocol):
        def connection_made(self, transport: asyncio.BaseTransport) -> None:  # type: ignore[override]
            accepted.append(transport)

    loop = asyncio.get_running_loop()
    server = await loop.create_server(Counted, "127.0.0.1", 0, backlog=4096)
    port = server.sockets[0].getsockname()[1]
    # Connected by the kernel into the listen queue, before the loop takes a turn.
    clients = [socket.create_connection(("127.0.0.1", port)) for _ in range(STORM)]
    per_turn: list[int] = []
    try:
        for _ in range(50):
            before = len(accepted)
            await asyncio.sleep(0)  # one turn of the loop
            per_turn.append(len(accepted) - before)
            if len(accepted) == STORM:
                break
    finally:
        for client in clients:
            client.close()
        for made in accepted:
            made.close()
        server.close()
        await server.wait_closed()
    return per_turn


def test_a_storm_is_accepted_a_few_connections_a_turn() -> None:
    accepted: list[asyncio.BaseTransport] = []
    loop = transport.TurnTakingLoop()
    try:
        per_turn = loop.run_until_complete(_storm(accepted))
    finally:
        loop.close()
    assert len(accepted) == STORM  # none left behind in the kernel's queue
    assert max(per_turn) <= transport.ACCEPTS_PER_TURN < STORM, per_turn
    assert sum(1 for made in per_turn if made) >= STORM // transport.ACCEPTS_PER_TURN


def test_the_worker_hypercorn_loads_from_bff_asgi_accepts_in_turns(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("BFF_")}
    env.update(
        BFF_DATABASE_URL=f"sqlite://{tmp_path}/bff.sqlite3",
        BFF_STORAGE_URL=f"file://{tmp_path}/storage",
        BFF_VAR_DIR=str(tmp_path / "var"),
    )
    # What Hypercorn's asyncio worker does: load the app, then make its event loop.
    code = "import asyncio, bff.asgi; print(type(asyncio.new_event_loop()).__name__)"
    made = subprocess.run(  # noqa: S603 - this interpreter, fixed code
        [sys.executable, "-c", code], env=env, cwd=REPO, capture_output=True, text=True, timeout=60
    )
    assert made.returncode == 0, made.stderr
    assert made.stdout.strip() == "TurnTakingLoop"


READY = 40


async def _ready_at_once(live: bool = False) -> tuple[list[int], list[int], int]:
    """READY connections with something to read, all at once (live ones if `live`), then one
    more (not live): the turn each was served at, the order the READY were served in, and the
    turn the last one was served at."""
    loop = asyncio.get_running_loop()
    assert isinstance(loop, transport.TurnTakingLoop)
    pairs = [socket.socketpair() for _ in range(READY + 1)]
    turn = 0
    served: list[int] = []
    order: list[int] = []
    last: list[int] = []

    def tick() -> None:  # a handle that runs once at every turn of the loop
        nonlocal turn
        turn += 1
        if len(served) < READY or not last:
            loop.call_soon(tick)

    def read(n: int, sock: socket.socket) -> None:
        sock.recv(16)
        loop.remove_reader(sock.fileno())
        if n == READY:
            last.append(turn)
        else:
            served.append(turn)
            order.append(n)

    try:
        for n, (ours, theirs) in enumerate(pairs):
            ours.setblocking(False)
            theirs.send(b"x")  # readable before the loop looks
            loop.add_reader(ours.fileno(), read, n, ours)
            if live and n < READY:
                loop.serve_live_later(ours)
        loop.call_soon(tick)
        async with asyncio.timeout(10):
            while len(served) < READY or not last:  # noqa: ASYNC110 - counting the loop's turns
                await asyncio.sleep(0)
    finally:
        for ours, theirs in pairs:
            loop.remove_reader(ours.fileno())
            ours.close()
            theirs.close()
    return served, order, last[0]


def _per_turn(served: list[int]) -> list[int]:
    return [served.count(t) for t in sorted(set(served))]


def test_connections_ready_at_once_are_served_a_few_a_turn_in_order() -> None:
    """A burst of connections with something to read (a storm's clients answer in bursts) is
    served EVENTS_PER_TURN at a turn, the rest at the next turns, the first ready first, none
    left behind: a request waits for short turns, not for one turn serving all of them."""
    loop = transport.TurnTakingLoop()
    try:
        served, order, last = loop.run_until_complete(_ready_at_once())
    finally:
        loop.close()
    per_turn = _per_turn(served)
    assert sum(per_turn) == READY
    assert max(per_turn) <= transport.EVENTS_PER_TURN < READY, per_turn
    assert len(per_turn) >= READY // transport.EVENTS_PER_TURN
    assert order == sorted(order)  # in the order they became ready
    assert last >= max(served)  # the last to be ready waited its turn


def test_a_request_is_served_before_live_connections_ready_before_it() -> None:
    """Live connections (websockets once set up) are served EVENTS_PER_TURN a turn after the
    others: a request's connection, ready after 40 of them, is served at the first turn, and
    every live one still gets its turn, in order."""
    loop = transport.TurnTakingLoop()
    try:
        served, order, last = loop.run_until_complete(_ready_at_once(live=True))
    finally:
        loop.close()
    per_turn = _per_turn(served)
    assert sum(per_turn) == READY
    assert max(per_turn) <= transport.EVENTS_PER_TURN < READY, per_turn
    assert order == sorted(order)
    assert last <= min(served)  # not behind any of them


def test_a_socket_no_longer_watched_is_no_longer_live() -> None:
    """A live socket's number goes to the next connection once it closes: the next one made
    with it is served with the others."""
    loop = transport.TurnTakingLoop()
    ours, theirs = socket.socketpair()
    try:
        loop.add_reader(ours.fileno(), lambda: None)
        loop.serve_live_later(ours)
        live = loop._selector._selector.live  # type: ignore[attr-defined]
        assert ours.fileno() in live
        loop.serve_live_later(ours, False)
        assert ours.fileno() not in live
        loop.serve_live_later(ours)
        loop.remove_reader(ours.fileno())  # what a transport's close does
        assert ours.fileno() not in live
    finally:
        ours.close()
        theirs.close()
        loop.close()


async def _a_websocket_through_the_gate() -> tuple[bool, bool]:
    """Hypercorn serving a websocket app behind HandshakeGate on this (TurnTakingLoop) loop:
    whether the server's side of a websocket was live while it was open, and after it ended."""
    loop = asyncio.get_running_loop()
    live: set[int] = loop._selector._selector.live  # type: ignore[attr-defined]
    seen: list[bool] = []

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "websocket":
            return
        await receive()  # websocket.connect
        await send({"type": "websocket.accept"})
        seen.append(bool(live))  # the server's side of this connection, the only live one
        while (await receive())["type"] != "websocket.disconnect":
            pass

    port = free_port()
    config = Config()
    config.bind = [f"127.0.0.1:{port}"]
    config.accesslog = None
    config.errorlog = None
    stop = asyncio.Event()
    gated = transport.HandshakeGate(app)
    server = asyncio.create_task(serve(gated, config, shutdown_trigger=stop.wait))  # type: ignore[arg-type]
    try:
        for _ in range(200):
            try:
                reader, writer = await asyncio.open_connection("127.0.0.1", port)
                break
            except OSError:
                await asyncio.sleep(0.02)
        ws = WSConnection(ConnectionType.CLIENT)
        writer.write(ws.send(Request(host=f"127.0.0.1:{port}", target="/")))
        accepted = False
        async with asyncio.timeout(10):
            while not accepted:
                ws.receive_data(await reader.read(4096))
                accepted = any(isinstance(e, AcceptConnection) for e in ws.events())
            while not seen:  # noqa: ASYNC110 - the app's own record
                await asyncio.sleep(0.01)
            writer.write(ws.send(CloseConnection(code=1000)))
            while await reader.read(4096):  # until the server closes
                pass
            writer.close()
            while live:  # noqa: ASYNC110 - the selector's own record
                await asyncio.sleep(0.01)
        return seen[0], bool(live)
    finally:
        stop.set()
        await server


def test_a_websocket_is_served_as_live_while_it_is_open() -> None:
    """HandshakeGate has the loop serve a websocket under Hypercorn with the live connections
    (after requests) from its start, and no longer once it has ended."""
    loop = transport.TurnTakingLoop()
    try:
        while_open, after = loop.run_until_complete(_a_websocket_through_the_gate())
    finally:
        loop.close()
    assert while_open
    assert not after


async def _newcomers_then_a_request() -> tuple[list[int], int]:
    """A client's connection served once (its request answered), then READY connections that
    say nothing until the server has accepted all of them; then every newcomer sends at once,
    and the first client after them: the turn each newcomer was read at, and the first's."""
    loop = asyncio.get_running_loop()
    assert isinstance(loop, transport.TurnTakingLoop)
    turn = 0
    reads: list[tuple[bytes, int]] = []
    accepted: list[asyncio.BaseTransport] = []

    class Server(asyncio.Protocol):
        def connection_made(self, made: asyncio.BaseTransport) -> None:  # type: ignore[override]
            accepted.append(made)

        def data_received(self, data: bytes) -> None:
            reads.extend((bytes([byte]), turn) for byte in data)

    def tick() -> None:
        nonlocal turn
        turn += 1
        loop.call_soon(tick)

    server = await loop.create_server(Server, "127.0.0.1", 0, backlog=4096)
    port = server.sockets[0].getsockname()[1]
    first = socket.create_connection(("127.0.0.1", port))
    newcomers: list[socket.socket] = []
    loop.call_soon(tick)
    try:
        async with asyncio.timeout(10):
            first.send(b"E")  # its first request
            while not reads:  # noqa: ASYNC110 - the server's own record
                await asyncio.sleep(0)
            newcomers = [socket.create_connection(("127.0.0.1", port)) for _ in range(READY)]
            while len(accepted) < READY + 1:  # noqa: ASYNC110 - a few a turn
                await asyncio.sleep(0)
            await asyncio.sleep(0.05)  # every newcomer registered, none readable
            for sock in newcomers:
                sock.send(b"N")
            first.send(b"R")  # its next request, readable after all of them
            while len(reads) < READY + 2:  # noqa: ASYNC110 - the server's own record
                await asyncio.sleep(0)
    finally:
        for sock in [first, *newcomers]:
            sock.close()
        for made in accepted:
            made.close()
        server.close()
        await server.wait_closed()
    newcomer_turns = [at for byte, at in reads if byte == b"N"]
    (request_turn,) = [at for byte, at in reads if byte == b"R"]
    return newcomer_turns, request_turn


def test_a_request_on_a_connection_in_use_is_served_before_newcomers_ready_before_it() -> None:
    """In a storm, connections accepted before their clients sent anything become readable
    together: each is served with the live ones until it has been served once, so a request
    on a connection already in use (a signed-in tab's next request) is not served after all
    of them, and every newcomer still gets its turn."""
    loop = transport.TurnTakingLoop()
    try:
        newcomer_turns, request_turn = loop.run_until_complete(_newcomers_then_a_request())
    finally:
        loop.close()
    per_turn = _per_turn(newcomer_turns)
    assert len(newcomer_turns) == READY
    assert max(per_turn) <= transport.EVENTS_PER_TURN < READY, per_turn
    assert request_turn <= min(newcomer_turns)
