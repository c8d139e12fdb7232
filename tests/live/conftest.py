"""A real server for Socket.IO tests: Hypercorn on 127.0.0.1 in this event loop."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import socketio
from hypercorn.asyncio import serve
from hypercorn.config import Config
from quart import Quart
from socketio import packet as socketio_packet

from bff.app import create_app
from bff.live import patches
from bff.live.server import asgi_app
from bff.services import app_services
from bff.users.models import User
from config.settings import Settings
from tests.conftest import empty_tables, make_settings
from tests.factories import StaffMember, make_container
from tools.devserver import free_port


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "live_patch(*names, why): relies on those live patches' behaviour (bff/live/patches/); "
        "skipped when BFF_LIVE_TUNING leaves one out",
    )


def pytest_runtest_setup(item: pytest.Item) -> None:
    """A test marked `live_patch(*names, why=...)` is skipped, saying why, while the tests run
    with BFF_LIVE_TUNING leaving one of those patches out (`make test` runs tests/live again
    with them off)."""
    settings = Settings()
    applied = patches.chosen(settings.live_tuning, settings.live_patches_force)
    for mark in item.iter_markers("live_patch"):
        assert mark.args and set(mark.args) <= set(patches.BY_NAME), mark.args
        if off := [name for name in mark.args if name not in applied]:
            why = mark.kwargs["why"]
            pytest.skip(f"relies on the live patch {', '.join(off)} (off here): {why}")


# A closed websocket freed by reference counting, nothing of it left in cycles for the full
# collection: what these patches do together (the stock libraries leave 60-190 objects of each).
FREED_AT_THEIR_END = pytest.mark.live_patch(
    "websocket-wire",
    "websocket-end",
    "environ-without-class",
    "free-connections",
    why="the patches free a closed websocket by reference counting",
)


async def close_client(client: socketio.AsyncClient) -> None:
    """Disconnect a client. engineio's server takes a long-polling client's goodbye without
    answering the poll it holds, which ends only at the ping timeout (30 s): for one, the
    goodbye is sent and the poll is not waited for (the client's session closes under it)."""
    if not client.connected:
        await client.shutdown()  # a client reconnecting by itself stops trying
        return
    if client.transport() != "polling":
        await client.disconnect()
        return
    for namespace in client.namespaces:
        await client._send_packet(
            client.packet_class(socketio_packet.DISCONNECT, namespace=namespace)
        )
    await client.eio.disconnect(abort=True)


class Listener:
    """A Socket.IO client that records every event it receives."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.client = socketio.AsyncClient(reconnection=False)
        self.events: list[tuple[str, Any]] = []
        self.disconnected = asyncio.Event()
        self.client.on("*", self._record)
        self.client.on("disconnect", self._gone)

    async def _record(self, event: str, data: Any) -> None:
        self.events.append((event, data))

    async def _gone(self, *args: Any) -> None:
        self.disconnected.set()

    async def connect(self, base: str, token: str | None) -> None:
        auth = {"token": token} if token is not None else None
        await self.client.connect(base, auth=auth, transports=["websocket"], wait_timeout=5)

    def names(self) -> list[str]:
        return [event for event, _ in self.events]

    async def wait_for(self, event: str, within: float = 3.0, since: int = 0) -> Any:
        """The payload of the first `event` received after the first `since` events (waiting
        for it if needed)."""
        async with asyncio.timeout(within):
            while True:
                for name, data in self.events[since:]:
                    if name == event:
                        return data
                await asyncio.sleep(0.01)

    async def close(self) -> None:
        await close_client(self.client)


class LiveServer:
    """The app served over real HTTP and websockets."""

    def __init__(self, app: Quart, base: str) -> None:
        self.app = app
        self.base = base
        self.settings: Settings = app_services(app).settings
        self.listeners: list[Listener] = []

    async def listener(self, token: str | None, name: str = "client") -> Listener:
        listener = Listener(name)
        self.listeners.append(listener)
        await listener.connect(self.base, token)
        return listener


def uploads(listener: Listener) -> list[str]:
    """The names of the files a listener heard were uploaded."""
    return [data["name"] for event, data in listener.events if event == "file:uploaded"]


async def marker(live: LiveServer, admin: StaffMember, listener: Listener, user: User) -> None:
    """Send `user` an event (a container assigned to them) and wait until `listener` has it:
    everything sent to that connection before has arrived by then."""
    since = len(listener.events)
    container = await make_container()
    response = await live.app.test_client().post(
        f"/api/assignments/containers/{container.name}/users/{user.id}", headers=admin.headers
    )
    assert response.status_code == 201, await response.get_data()
    assert await listener.wait_for("assignments:changed", since=since) == {"userId": user.id}


async def run_live(settings: Settings) -> AsyncIterator[LiveServer]:
    """Serve a fresh app until the caller is done."""
    app = create_app(settings, bootstrap_admin=False)
    port = free_port()
    config = Config()
    config.bind = [f"127.0.0.1:{port}"]
    config.accesslog = None
    config.errorlog = None
    stop = asyncio.Event()
    task = asyncio.create_task(serve(asgi_app(app), config, shutdown_trigger=stop.wait))  # type: ignore[arg-type]
    for _ in range(200):
        try:
            _, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.close()
            await writer.wait_closed()
            break
        except OSError:
            await asyncio.sleep(0.02)
    server = LiveServer(app, f"http://127.0.0.1:{port}")
    try:
        await empty_tables()  # inside: a failure here must stop the server too
        yield server
    finally:
        for listener in server.listeners:
            await listener.close()
        stop.set()
        await stopped(task)


STOP_SECONDS = 30  # the app's stop: Hypercorn's graceful wait, then steps of up to 10 s each


async def stopped(task: asyncio.Task[Any]) -> None:
    """Wait for the server's task to end; if it does not within STOP_SECONDS, fail with where
    every task of the loop stands (what held the stop)."""
    done, _ = await asyncio.wait({task}, timeout=STOP_SECONDS)
    if done:
        task.result()
        return
    stacks = []
    for other in asyncio.all_tasks():
        frames = other.get_stack(limit=8)
        where = " <- ".join(f"{f.f_code.co_name}:{f.f_lineno}" for f in reversed(frames))
        stacks.append(f"{other.get_name()}: {where}")
    task.cancel()
    raise AssertionError("the server did not stop:\n" + "\n".join(sorted(stacks)))


@pytest.fixture
async def live(database_url: str, run_dir: Path, tmp_path: Path) -> AsyncIterator[LiveServer]:
    settings = make_settings(database_url, run_dir, storage_url=f"file://{tmp_path}/storage")
    async for server in run_live(settings):
        yield server
