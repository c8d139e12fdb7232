"""docs/examples/live_client.py, the live client docs/api.md gives integrators, run from its file
against real servers (the Procfile's web line): it keeps a folder's list through a SIGTERM and
a start on the same port, with files uploaded while it was away (through a second instance,
so no event of theirs can reach it) and after the restart.

python-socketio's client reconnects by itself only after a dropped transport: a Socket.IO
DISCONNECT or an Engine.IO CLOSE from the server ends it for good (it takes them for the
server's refusal). So the server's stop closes each websocket without either
(bff/live/server.py `LiveHub.drain`)."""

from __future__ import annotations

import asyncio
import importlib.util
import os
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import aiohttp
import pytest
import socketio

from bff.live.server import RESTARTING
from bff.services import app_services
from bff.users.models import Role
from tests.factories import make_staff
from tests.live.conftest import LiveServer, close_client
from tests.tools.test_entry_points import ADMIN_PASSWORD, Started, run, server_env, upload
from tests.tools.test_operator_files import procfile
from tools.devserver import REPO, free_port, kill_group

EXAMPLE = REPO / "docs" / "examples" / "live_client.py"
WEB_CLIENT = Path(__file__).with_name("web_client_probe.mjs")
CONTAINER, FOLDER = "north-clinic", "patient-001"  # from `python -m bff demo`


def example_client() -> ModuleType:
    """docs/examples/live_client.py as it is (not a copy)."""
    spec = importlib.util.spec_from_file_location("live_client_example", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


async def until(condition: Callable[[], bool], seconds: float, what: str) -> None:
    """Wait for something that must happen (a bound, not a proof that something did not)."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, what
        await asyncio.sleep(0.05)


async def test_the_example_client_survives_a_restart_and_learns_every_upload(
    tmp_path: Path,
) -> None:
    live = example_client()
    port, other_port = free_port(), free_port()
    env = server_env(tmp_path, PORT=str(port))
    run(procfile()["release"], env)
    run(f"{sys.executable} -m bff demo", env)
    web = procfile()["web"]
    started: list[Started] = []

    def start(on_port: int, log: str) -> Started:
        server = Started(web, server_env(tmp_path, PORT=str(on_port)), on_port, tmp_path / log)
        started.append(server)
        return server

    try:
        server = await asyncio.to_thread(start, port, "first.log")
        other = await asyncio.to_thread(start, other_port, "other.log")  # same database, files
        async with aiohttp.ClientSession() as http:
            token = await live.sign_in(http, server.base, "admin", ADMIN_PASSWORD)
            headers = {"x-auth-token": token}
            watch = live.FolderWatch(server.base, token, http, CONTAINER, FOLDER)
            await watch.start()
            try:
                await until(lambda: watch.changed.is_set(), 30, "the first list never came")
                shown = set(watch.names)
                assert shown  # the demo's files

                await asyncio.to_thread(server.stop)  # SIGTERM to its group, until it is gone
                assert watch.told_to_reconnect == 1
                away = [f"while-away-{n}.txt" for n in range(5)]
                for name in away:  # no event of these can reach the client: only a refetch
                    await upload(http, other.base, headers, f"{CONTAINER}/{FOLDER}", name, b"x")
                server = await asyncio.to_thread(start, port, "again.log")
                back = [f"after-restart-{n}.txt" for n in range(5)]
                for name in back:  # before or after it reconnects: either way it must know
                    await upload(http, server.base, headers, f"{CONTAINER}/{FOLDER}", name, b"y")

                expected = shown | set(away) | set(back)
                await until(
                    lambda: watch.names == expected,
                    60,
                    f"the client did not learn the uploads: {sorted(expected - watch.names)} "
                    f"missing after {watch.connections} connection(s)",
                )
                assert watch.connections == 2  # the first, and one reconnection
                assert watch.ended is None
            finally:
                await watch.stop()
    finally:
        for each in started:
            kill_group(each.process)


@pytest.mark.parametrize("transports", [["websocket"], ["polling"], None])
async def test_a_stopping_server_drops_the_transport_so_a_stock_client_reconnects(
    live: LiveServer, transports: list[str] | None
) -> None:
    """python-socketio's client with its defaults (None: long-polling, then the upgrade to a
    websocket) is told `live:reconnect`, loses its transport (not a DISCONNECT or CLOSE, after
    which it would never retry); while the process stops, a connection is refused with a
    message, which the client retries until one is taken."""
    nurse = await make_staff(live.settings, Role.NURSE)
    client = socketio.AsyncClient(reconnection=True)
    heard: list[str] = []
    reasons: list[str] = []
    client.on("live:reconnect", lambda data: heard.append("live:reconnect"))
    client.on("disconnect", lambda reason: reasons.append(reason))
    await client.connect(
        live.base, auth={"token": nurse.token}, transports=transports, wait_timeout=5
    )
    if transports is None:
        await until(lambda: client.transport() == "websocket", 10, "no upgrade")
    hub = app_services(live.app).live
    try:
        assert await hub.drain() == 1
        await until(lambda: bool(reasons), 10, "the connection was not closed")
        assert heard == ["live:reconnect"]
        assert reasons == [client.reason.TRANSPORT_ERROR]

        late = socketio.AsyncClient(reconnection=False)
        refusals: list[object] = []
        late.on("connect_error", lambda data: refusals.append(data))
        try:
            with pytest.raises(socketio.exceptions.ConnectionError):
                await late.connect(
                    live.base, auth={"token": nurse.token}, transports=["websocket"], wait_timeout=5
                )
        finally:
            await late.shutdown()  # taken (a failure): it must not hold the server's stop
        assert refusals == [{"message": RESTARTING}]

        hub.draining = False  # as a process started again would take connections
        await until(lambda: client.connected, 30, "the client did not reconnect by itself")
    finally:
        await close_client(client)


async def test_the_web_apps_client_is_dropped_at_once_by_a_sigterm(tmp_path: Path) -> None:
    """socket.io-client, the web app's library (run by Node, set up as the web app does), ignores
    an Engine.IO CLOSE on a websocket: before, its connection stayed open after `live:reconnect`
    until the server exited at graceful_timeout (20 s; it held the stop that long), and only
    then did the web app reconnect. Now it is dropped at once and the server stops promptly."""
    port = free_port()
    env = server_env(tmp_path, PORT=str(port))
    run(procfile()["release"], env)
    server = await asyncio.to_thread(Started, procfile()["web"], env, port, tmp_path / "web.log")
    try:
        async with aiohttp.ClientSession() as http:
            token = await example_client().sign_in(http, server.base, "admin", ADMIN_PASSWORD)
        node = await asyncio.create_subprocess_exec(
            "node",
            str(WEB_CLIENT),
            str(REPO / "frontend"),
            server.base,
            token,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
        )
        assert node.stdout is not None and node.stdin is not None
        heard: list[str] = []

        async def line() -> str:
            heard.append((await asyncio.wait_for(node.stdout.readline(), 30)).decode().strip())
            return heard[-1]

        try:
            assert await line() == "connect", heard
            signalled = time.monotonic()
            os.killpg(server.process.pid, signal.SIGTERM)  # every process, as systemd does
            while await line() != "disconnect transport close":
                pass
            dropped = time.monotonic() - signalled
            assert dropped < 10, (dropped, heard)  # not when the server exits
            assert heard == ["connect", "live:reconnect", "disconnect transport close"]
            await asyncio.to_thread(server.wait_gone, 30)
            assert time.monotonic() - signalled < 10  # not held until graceful_timeout (20 s)
        finally:
            node.stdin.close()
            await node.wait()
    finally:
        kill_group(server.process)
