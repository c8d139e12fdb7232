"""A storm's connections are accepted a few at a turn of the event loop (bff/live/patches/loop.py's
`TurnTakingLoop`), so requests in flight are not held behind hundreds of new connections set
up in one turn; and the worker Hypercorn starts from bff/asgi.py runs on that loop."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from bff.live.patches import loop as turn_taking

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
    loop = turn_taking.TurnTakingLoop()
    try:
        per_turn = loop.run_until_complete(_storm(accepted))
    finally:
        loop.close()
    assert len(accepted) == STORM  # none left behind in the kernel's queue
    assert max(per_turn) <= turn_taking.ACCEPTS_PER_TURN < STORM, per_turn
    assert sum(1 for made in per_turn if made) >= STORM // turn_taking.ACCEPTS_PER_TURN


@pytest.mark.parametrize(
    ("tuning", "loop", "selector"),
    [
        ("on", "TurnTakingLoop", "_TurnSelector"),
        ("off:accept-in-turns", "_UnixSelectorEventLoop", "_TurnSelector"),
        ("off:ready-in-turns", "TurnTakingLoop", "EpollSelector"),
        ("off", "_UnixSelectorEventLoop", "EpollSelector"),  # asyncio's own
    ],
)
def test_the_worker_hypercorn_loads_from_bff_asgi_accepts_in_turns(
    tmp_path: Path, tuning: str, loop: str, selector: str
) -> None:
    """As BFF_LIVE_TUNING says (bff/live/patches/ apply_loop), whatever the tests run with."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("BFF_")}
    env.update(
        BFF_DATABASE_URL=f"sqlite://{tmp_path}/bff.sqlite3",
        BFF_STORAGE_URL=f"file://{tmp_path}/storage",
        BFF_VAR_DIR=str(tmp_path / "var"),
        BFF_LIVE_TUNING=tuning,
    )
    # What Hypercorn's asyncio worker does: load the app, then make its event loop.
    code = (
        "import asyncio, bff.asgi; made = asyncio.new_event_loop(); "
        "print(type(made).__name__, type(made._selector).__name__)"
    )
    made = subprocess.run(  # noqa: S603 - this interpreter, fixed code
        [sys.executable, "-c", code], env=env, cwd=REPO, capture_output=True, text=True, timeout=60
    )
    assert made.returncode == 0, made.stderr
    assert made.stdout.split() == [loop, selector]


READY = 40


async def _ready_at_once() -> tuple[list[int], list[int]]:
    """READY connections with something to read, all at once: the turn each was served at, and
    the order they were served in."""
    loop = asyncio.get_running_loop()
    pairs = [socket.socketpair() for _ in range(READY)]
    turn = 0
    served: list[int] = []
    order: list[int] = []

    def tick() -> None:  # a handle that runs once at every turn of the loop
        nonlocal turn
        turn += 1
        if len(served) < READY:
            loop.call_soon(tick)

    def read(n: int, sock: socket.socket) -> None:
        sock.recv(16)
        loop.remove_reader(sock.fileno())
        served.append(turn)
        order.append(n)

    try:
        for n, (ours, theirs) in enumerate(pairs):
            ours.setblocking(False)
            theirs.send(b"x")  # readable before the loop looks
            loop.add_reader(ours.fileno(), read, n, ours)
        loop.call_soon(tick)
        async with asyncio.timeout(10):
            while len(served) < READY:  # noqa: ASYNC110 - counting the loop's turns
                await asyncio.sleep(0)
    finally:
        for ours, theirs in pairs:
            loop.remove_reader(ours.fileno())
            ours.close()
            theirs.close()
    return served, order


def test_connections_ready_at_once_are_served_a_few_a_turn_in_order() -> None:
    """A burst of connections with something to read (a storm's clients answer in bursts) is
    served EVENTS_PER_TURN at a turn, the rest at the next turns, the first ready first, none
    left behind: a request waits for short turns, not for one turn serving all of them."""
    loop = turn_taking.TurnTakingLoop()
    try:
        served, order = loop.run_until_complete(_ready_at_once())
    finally:
        loop.close()
    per_turn = [served.count(t) for t in sorted(set(served))]
    assert sum(per_turn) == READY
    assert max(per_turn) <= turn_taking.EVENTS_PER_TURN < READY, per_turn
    assert len(per_turn) >= READY // turn_taking.EVENTS_PER_TURN
    assert order == sorted(order)  # in the order they became ready
