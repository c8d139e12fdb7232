"""An integrator's live client of the patient-records BFF that stays right through a restart:
it signs in, keeps one folder's file list, and refetches it whenever its connection comes
back (docs/api.md, "Live updates").

Events are signals, and the server keeps none: an event sent while this client is not connected
(the server restarting, the network away) is lost for good. So the client fetches what it shows
on every connection, the first and each one after a drop, and again at each event naming it.
`live:reconnect` (the server is stopping) and a dropped connection need nothing more than that:
python-socketio reconnects by itself (reconnection is on by default: 1 s, then doubling up to
5 s, for ever) and the connection's `connect` refetches. `live:resync` (the server's link to
the other instances was down) refetches too. A connection refused during reconnection is
retried; if the session has ended meanwhile (401 at GET /api/auth/validate-token) the client
stops, and its owner signs in again.

Run (python-socketio and aiohttp: `pip install "python-socketio[asyncio_client]" aiohttp`):

    BFF_PASSWORD=... python docs/examples/live_client.py --url http://127.0.0.1:8000 \\
        --username admin north-clinic/patient-001

It prints the folder's files each time they change, until Ctrl-C. tests/live/test_example_client.py
runs this file against a real server that is stopped with SIGTERM and started again.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import sys
from collections.abc import Callable
from typing import Any

import aiohttp
import socketio

# Events about a folder's files: each names {container, folder, name}.
FILE_EVENTS = (
    "file:uploaded",
    "file:deleted",
    "file:restored",
    "version:restored",
    "file:indexed",
    "file:preview",
)


class SignInError(Exception):
    """The server did not give a session for these credentials."""


async def sign_in(http: aiohttp.ClientSession, url: str, username: str, password: str) -> str:
    """A session token for username and password (a user with a second factor signs in through
    POST /api/auth/login/mfa next: not shown here)."""
    async with http.post(
        f"{url}/api/auth/login", json={"username": username, "password": password}
    ) as response:
        body = await response.json()
        if response.status != 200:
            raise SignInError(body.get("message", f"HTTP {response.status}"))
    token = body.get("token")
    if not isinstance(token, str) or body.get("mfaEnrolmentRequired"):
        raise SignInError("This account needs its second factor: sign in through the web app.")
    return token


class FolderWatch:
    """One folder's file names, kept current from the live connection.

    `names` is the folder's list as last fetched; `connections` counts the connections made
    (the first, then one per reconnection); `told_to_reconnect` the `live:reconnect` hints
    heard; `ended` says why the client stopped (its session ended), None while it runs."""

    def __init__(
        self,
        url: str,
        token: str,
        http: aiohttp.ClientSession,
        container: str,
        folder: str,
        on_change: Callable[[FolderWatch], None] | None = None,
    ) -> None:
        self.url = url.rstrip("/")
        self.http = http
        self.container = container
        self.folder = folder
        self.headers = {"x-auth-token": token}
        self.names: set[str] = set()
        self.connections = 0
        self.told_to_reconnect = 0
        self.ended: str | None = None
        self.on_change = on_change
        self.changed = asyncio.Event()  # set after each fetch of the list
        self._fetching = asyncio.Lock()
        self._tasks: set[asyncio.Task[None]] = set()
        # python-socketio's defaults: reconnect for ever, 1 s apart, doubling up to 5 s.
        self.sio = socketio.AsyncClient(reconnection=True)
        self.sio.on("connect", self._connected)
        self.sio.on("connect_error", self._refused)
        self.sio.on("live:reconnect", self._restarting)
        self.sio.on("live:resync", self._resync)
        self.sio.on("session:revoked", self._revoked)
        for event in FILE_EVENTS:
            self.sio.on(event, self._file_event)
        self._auth = {"token": token}

    async def start(self) -> None:
        """Connect (the websocket transport: no sticky sessions needed behind a balancer); the
        list is fetched once connected."""
        await self.sio.connect(self.url, auth=self._auth, transports=["websocket"])

    async def stop(self) -> None:
        """Disconnect and stop reconnecting."""
        await self.sio.shutdown()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    async def refetch(self) -> None:
        """Fetch the folder's list (one fetch at a time; one asked for during a fetch runs
        after it, so nothing changed meanwhile is missed)."""
        async with self._fetching:
            async with self.http.get(
                f"{self.url}/api/blobs/{self.container}/{self.folder}", headers=self.headers
            ) as response:
                if response.status == 401:
                    await self._end("signed out")
                    return
                response.raise_for_status()
                body = await response.json()
            self.names = {blob["name"] for blob in body["blobs"]}
            self.changed.set()
            if self.on_change is not None:
                self.on_change(self)

    def _refetch_soon(self) -> None:
        """A refetch in the background: a handler must not hold python-socketio's read loop."""
        task = asyncio.get_running_loop().create_task(self._refetch_logged())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _refetch_logged(self) -> None:
        try:
            await self.refetch()
        except (aiohttp.ClientError, TimeoutError) as exc:
            # The server went away again: the next connection refetches.
            print(
                f"Refetch failed ({type(exc).__name__}); the next connection retries",
                file=sys.stderr,
            )

    async def _connected(self) -> None:
        # Every connection refetches: events sent while it was down are lost for good.
        self.connections += 1
        self._refetch_soon()

    async def _file_event(self, payload: Any) -> None:
        if (
            isinstance(payload, dict)
            and payload.get("container") == self.container
            and payload.get("folder") == self.folder
        ):
            self._refetch_soon()

    async def _restarting(self, payload: Any) -> None:
        # The server is stopping: it closes this connection next, and python-socketio
        # reconnects by itself (to another instance, or to this one restarted).
        self.told_to_reconnect += 1

    async def _resync(self, payload: Any) -> None:
        self._refetch_soon()

    async def _revoked(self, payload: Any) -> None:
        reason = payload.get("reason") if isinstance(payload, dict) else None
        await self._end(f"session ended ({reason or 'unknown'})")

    async def _refused(self, data: Any) -> None:
        # Called for every failed attempt: a server not answering (data: a string), which
        # python-socketio just retries, or one refusing the connection (data: its {message}):
        # then the session may have ended while the client was away. A handler that raises
        # would end python-socketio's reconnection for good.
        if not isinstance(data, dict):
            return
        try:
            async with self.http.get(
                f"{self.url}/api/auth/validate-token", headers=self.headers
            ) as response:
                if response.status == 401:
                    await self._end("signed out")
        except (aiohttp.ClientError, TimeoutError):
            pass  # the server went away again: the next attempt asks again

    async def _end(self, why: str) -> None:
        self.ended = why
        self.changed.set()
        task = asyncio.get_running_loop().create_task(self.sio.shutdown())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)


def _show(watch: FolderWatch) -> None:
    print(f"{watch.container}/{watch.folder}: {', '.join(sorted(watch.names)) or '(empty)'}")


async def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default="http://127.0.0.1:8000")
    parser.add_argument("--username", required=True)
    parser.add_argument("folder", help="container/folder, e.g. north-clinic/patient-001")
    args = parser.parse_args(argv)
    container, _, folder = args.folder.partition("/")
    password = os.environ.get("BFF_PASSWORD")
    if not password:
        parser.error("set BFF_PASSWORD to the user's password")
    async with aiohttp.ClientSession() as http:
        try:
            token = await sign_in(http, args.url, args.username, password)
        except SignInError as exc:
            print(f"Sign-in failed: {exc}", file=sys.stderr)
            return 1
        watch = FolderWatch(args.url, token, http, container, folder, on_change=_show)
        await watch.start()
        try:
            while watch.ended is None:
                await watch.changed.wait()
                watch.changed.clear()
        finally:
            await watch.stop()
        print(f"Stopped: {watch.ended}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        sys.exit(asyncio.run(main()))
