"""A Redis outage between two real server processes (issue 23 point 3): while the link is down
a process trusts no cached session (a sign-out on the other instance works at once), and when
Redis returns the link is back within about a second, sign-outs cross again, and clients get
`live:resync` for the events they missed.

Redis here is a throwaway redis-server of our own, killed and restarted on the same port;
sessions are cached for a minute and re-checked only every minute (outside an outage), so
anything sooner is the mechanism under test.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from bff.auth.sessions import open_session
from bff.db import close_db, init_db
from bff.live.managers import CLOSE_SECONDS, RedisManager
from bff.users.models import User
from config.settings import Settings
from tests.live.conftest import Listener, uploads
from tools.devserver import RedisProcess, ServerProcess, local_env, throwaway_postgres

# It reads BFF_TEST_DATABASE itself: PostgreSQL's phase must run it too.
pytestmark = pytest.mark.database

ADMIN_PASSWORD = "redis-outage-admin-pw"
NURSE = {"username": "outage.nurse", "password": "outage-nurse-pw"}
# python-socketio's own loop retried 1, 3, 7, 15 s after the loss: a Redis back after 8 s
# was heard again only 7 s later. Ours must hear it within RECONNECT_BOUND.
OUTAGE_SECONDS = 8.0
RECONNECT_BOUND = 3.0


class Pair:
    """Two server processes A and B on one database and one Redis of our own."""

    def __init__(self, redis: RedisProcess, a: ServerProcess, b: ServerProcess) -> None:
        self.redis, self.a, self.b = redis, a, b
        self.http = aiohttp.ClientSession()
        self.admin = ""
        self._marks: dict[int, int] = {}

    async def call(self, method: str, url: str, token: str = "", **kw: Any) -> Any:
        headers = {"x-auth-token": token} if token else {}
        async with self.http.request(method, url, headers=headers, **kw) as response:
            assert response.status < 400, (url, response.status, await response.text())
            return await response.json()

    async def me(self, server: ServerProcess, token: str) -> int:
        """The status of GET /api/auth/me on server with token."""
        headers = {"x-auth-token": token}
        async with self.http.get(f"{server.base}/api/auth/me", headers=headers) as response:
            return response.status

    async def nurse_session(self) -> str:
        """A new session of the nurse, signed in on A."""
        login = await self.call("POST", f"{self.a.base}/api/auth/login", json=NURSE)
        token: str = login["token"]
        return token

    async def upload(self, name: str) -> None:
        form = aiohttp.FormData()
        form.add_field("file", b"x", filename=name)
        await self.call("POST", f"{self.a.base}/api/blobs/ward-r/p-1", self.admin, data=form)

    def _output(self, server: ServerProcess) -> str:
        assert server.log is not None
        return server.log.read_text(errors="replace")

    def mark(self) -> None:
        """From now on, log_says looks only at what the servers write after this."""
        self._marks = {server.port: len(self._output(server)) for server in (self.a, self.b)}

    async def log_says(self, server: ServerProcess, text: str, within: float = 5) -> None:
        """Wait until server's output since the mark contains text."""
        deadline = time.monotonic() + within
        while text not in self._output(server)[self._marks.get(server.port, 0) :]:
            assert time.monotonic() < deadline, f"{server.base} never logged {text!r}"
            await asyncio.sleep(0.05)

    async def redis_down(self) -> None:
        """Kill Redis; wait until B knows."""
        self.mark()
        self.redis.stop()
        await self.log_says(self.b, "Redis link lost")

    async def redis_back(self) -> None:
        """Start Redis again if it is down; wait until both processes hear it."""
        if self.redis.process is None:
            self.mark()
            self.redis.start()
            for server in (self.a, self.b):
                await self.log_says(server, "Redis link back", within=30)


@pytest.fixture(scope="module")
async def pair(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Pair]:
    tmp_path = tmp_path_factory.mktemp("redis-outage")
    redis = RedisProcess()
    redis.start()
    env = local_env(
        tmp_path,
        redis_url=redis.url,
        admin_password=ADMIN_PASSWORD,
        session_cache_seconds="60",
        live_session_check_seconds="60",
    )
    async with _database(env) as env:
        a = ServerProcess(env, log=tmp_path / "a.log")  # migrates the database first
        try:
            b = ServerProcess(env, log=tmp_path / "b.log")
            try:
                pair = Pair(redis, a, b)
                try:
                    await _arrange(pair)
                    yield pair
                finally:
                    await pair.http.close()
            finally:
                b.stop()
        finally:
            a.stop()
            redis.stop()


@contextlib.asynccontextmanager
async def _database(env: dict[str, str]) -> AsyncIterator[dict[str, str]]:
    """env on a throwaway PostgreSQL database with BFF_TEST_DATABASE=postgres, else on the
    SQLite file local_env names."""
    if os.environ.get("BFF_TEST_DATABASE") != "postgres":
        yield env
        return
    async with throwaway_postgres("bff_outage") as url:
        yield {**env, "BFF_DATABASE_URL": url}


async def _listener(name: str, base: str, token: str) -> Listener:
    listener = Listener(name)
    await listener.connect(base, token)
    return listener


async def _arrange(pair: Pair) -> None:
    a = pair.a.base
    login = {"username": "admin", "password": ADMIN_PASSWORD}
    pair.admin = (await pair.call("POST", f"{a}/api/auth/login", json=login))["token"]
    body = {"name": "Nurse", "role": "nurse", **NURSE}
    await pair.call("POST", f"{a}/api/auth/register", pair.admin, json=body)
    await pair.call("POST", f"{a}/api/admin/containers", pair.admin, json={"name": "ward-r"})
    folders = f"{a}/api/admin/containers/ward-r/folders"
    await pair.call("POST", folders, pair.admin, json={"name": "p-1"})


async def test_during_an_outage_a_sign_out_on_one_instance_works_at_once_on_the_other(
    pair: Pair,
) -> None:
    a, b = pair.a, pair.b
    before = await pair.nurse_session()
    assert await pair.me(b, before) == 200  # cached on B while its link is up
    phone = await _listener("nurse's phone on B", b.base, before)
    try:
        await pair.redis_down()
        during = await pair.nurse_session()
        for _ in range(2):  # read on B during the outage (it must not cache it)
            assert await pair.me(b, during) == 200
        for token in (before, during):
            await pair.call("POST", f"{a.base}/api/auth/logout", token)
            # The very next request on B: refused, not after the cache's minute.
            assert await pair.me(b, token) == 401
        # B's live socket of the ended session ends too (re-checked every second meanwhile).
        assert await phone.wait_for("session:revoked", within=5) == {"reason": "ended"}
        await asyncio.wait_for(phone.disconnected.wait(), 5)
        # Sessions still alive keep working on B.
        assert await pair.me(b, pair.admin) == 200
    finally:
        await phone.close()
        await pair.redis_back()


async def test_after_an_outage_the_link_is_back_at_once_and_clients_are_told_to_refetch(
    pair: Pair,
) -> None:
    a, b = pair.a, pair.b
    admin_on_b = await _listener("admin on B", b.base, pair.admin)
    nurse = await pair.nurse_session()
    tablet = await _listener("nurse's tablet on B", b.base, nurse)
    try:
        await pair.redis_down()
        await pair.upload("missed.txt")  # its event never reaches B's clients
        await asyncio.sleep(OUTAGE_SECONDS)  # the outage's length (proves nothing by itself)
        seen = len(admin_on_b.events)
        pair.redis.start()
        back = time.monotonic()
        # B's clients are told to refetch what they show (the missed upload among it).
        assert await admin_on_b.wait_for("live:resync", within=RECONNECT_BOUND, since=seen) == {}
        await tablet.wait_for("live:resync", within=1)
        # Events from A reach B again.
        n = 0
        while not any(name.startswith("after-") for name in uploads(admin_on_b)):
            assert time.monotonic() - back < RECONNECT_BOUND, "events from A never reached B"
            n += 1
            await pair.upload(f"after-{n}.txt")
            await asyncio.sleep(0.1)
        # The marker: an upload A published after the missed one has reached B, so the missed
        # one's event, had it been sent (or kept and sent late), would have arrived before it.
        assert "missed.txt" not in uploads(admin_on_b)
        # A session cached on B now ends there as soon as A signs it out: through Redis.
        for _ in range(2):
            assert await pair.me(b, nurse) == 200
        await pair.call("POST", f"{a.base}/api/auth/logout", nurse)
        assert await tablet.wait_for("session:revoked", within=2) == {"reason": "logout"}
        started = time.monotonic()
        while await pair.me(b, nurse) != 401:
            assert time.monotonic() - started < 2, "the sign-out on A never reached B's cache"
            await asyncio.sleep(0.02)
        assert admin_on_b.client.connected
    finally:
        await admin_on_b.close()
        await tablet.close()
        await pair.redis_back()


SIGN_OUT_TRIALS = 100


async def _nurse_sessions(pair: Pair, count: int) -> list[str]:
    """count sessions of the nurse, opened as a sign-in opens them (`open_session`, in the
    servers' database, signed with their key) but without a sign-in's password check, which
    takes about a second here."""
    env = pair.a.env
    settings = Settings(database_url=env["BFF_DATABASE_URL"], var_dir=Path(env["BFF_VAR_DIR"]))
    await init_db(settings)
    try:
        nurse = await User.get(username=NURSE["username"])
        return [await open_session(nurse, settings, "127.0.0.1") for _ in range(count)]
    finally:
        await close_db()


async def test_a_sign_out_is_over_on_every_instance_when_it_answers(pair: Pair) -> None:
    """With the link up: a session cached on B, signed out on A, and the very next request on
    B (sent as soon as A answers) is refused, in every one of SIGN_OUT_TRIALS trials. Before,
    B heard of the sign-out 4-6 ms after A's answer and 3-4 of 12 such requests succeeded."""
    a, b = pair.a, pair.b
    await pair.redis_back()
    still_working = 0
    for token in await _nurse_sessions(pair, SIGN_OUT_TRIALS):
        assert await pair.me(b, token) == 200  # read on B, and cached there
        await pair.call("POST", f"{a.base}/api/auth/logout", token)
        if await pair.me(b, token) != 401:
            still_working += 1
    assert still_working == 0, f"{still_working} of {SIGN_OUT_TRIALS} tokens worked on B"


async def test_a_listener_that_ignores_its_cancellation_never_holds_the_app_s_stop() -> None:
    """A Redis client may turn the stop's cancellation of the listening loop into a lost link,
    which the loop retried for good: the app's stop then waited past any timeout (CI saw a test
    app's shutdown time out at 120 s). The stop waits for the listener CLOSE_SECONDS at most."""
    manager = RedisManager("redis://127.0.0.1:6379/15", channel="bff-test-close")
    released = asyncio.Event()

    async def stubborn() -> None:  # a listener that takes every cancellation for a failure
        while not released.is_set():
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.sleep(60)

    listener = manager.thread = asyncio.create_task(stubborn())
    await asyncio.sleep(0)
    started = time.monotonic()
    async with asyncio.timeout(CLOSE_SECONDS + 10):
        await manager.aclose()
    assert time.monotonic() - started < CLOSE_SECONDS + 5
    released.set()  # the test's own task ends
    listener.cancel()
    await asyncio.wait({listener}, timeout=5)
    assert listener.done()
