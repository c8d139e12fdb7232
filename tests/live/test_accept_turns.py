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

from bff.live import transport

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
