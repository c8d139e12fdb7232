"""Search bounds on real servers (issue 47 review, items 2 and 6): Hypercorn serving the app as
the Procfile does (`tests/search/slow_search_asgi.py`: the same app, whose searches of
`slowpoke` first run, through their own reading, a statement that lasts minutes unless
stopped), on SQLite and, with
BFF_TEST_DATABASE=postgres, on PostgreSQL.

- A client that goes away ends its search in the database: the statement stops (PostgreSQL: it
  leaves pg_stat_activity; SQLite: the search's own connection to the file is closed, which
  aiosqlite does only once the statement its thread runs has ended), its turn is free again,
  and the health check and a sign-in answer at once meanwhile and after.
- Each user's searches per minute hold across two instances on one database without Redis
  (they were counted in each process: the limit once per worker).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

import aiohttp
import pytest

from tests.tools.test_entry_points import Started, run, server_env, sign_in
from tools.devserver import free_port, kill_group, query_database, throwaway_postgres

pytestmark = pytest.mark.database

SLOW_QUERY = "slowpoke"  # tests/search/slow_search_asgi.py
POSTGRES = os.environ.get("BFF_TEST_DATABASE") == "postgres"
RUNNING = (
    "SELECT COUNT(*) FROM pg_stat_activity WHERE state = 'active' "
    "AND query LIKE '%pg_sleep(600)%' AND pid <> pg_backend_pid()"
)


@dataclass
class Servers:
    started: list[Started]
    database_url: str
    database_file: str  # SQLite's file ('' on PostgreSQL)


@contextlib.asynccontextmanager
async def servers(root: Path, count: int, **settings: str) -> AsyncIterator[Servers]:
    """`count` servers (a Hypercorn master and its worker each) on one new database, no Redis."""
    async with contextlib.AsyncExitStack() as stack:
        extra = dict(settings)
        if POSTGRES:
            extra["BFF_DATABASE_URL"] = await stack.enter_async_context(
                throwaway_postgres("bff_search_server")
            )
        env = server_env(root, **extra)
        run(f"{sys.executable} -m bff migrate", env)
        started = []
        for n in range(count):  # one after another: the first creates the admin
            port = free_port()
            server = Started(
                "exec hypercorn --config config/hypercorn.toml "
                f"--bind 127.0.0.1:{port} tests.search.slow_search_asgi:app",
                env,
                port,
                root / f"web-{n}.log",
            )
            stack.callback(kill_group, server.process)
            server.wait_serving(1)
            started.append(server)
        url = env["BFF_DATABASE_URL"]
        yield Servers(started, url, "" if POSTGRES else url.removeprefix("sqlite://"))


async def _gauges(http: aiohttp.ClientSession, base: str) -> dict[str, float]:
    """The search gauges of a server's /metrics (asked from 127.0.0.1: BFF_METRICS_ALLOW)."""
    async with http.get(f"{base}/metrics") as response:
        assert response.status == 200
        text = await response.text()
    found = {}
    for line in text.splitlines():
        name, _, value = line.partition(" ")
        if name in ("bff_searches_running", "bff_search_connections"):
            found[name.removeprefix("bff_")] = float(value)
    return found


def _cpu_seconds(pgid: int) -> float:
    """The CPU time the processes of a group have used (a statement running burns it)."""
    ticks = 0
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            with contextlib.suppress(OSError):
                if os.getpgid(int(entry)) == pgid:
                    fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
                    ticks += int(fields[11]) + int(fields[12])  # utime, stime
    return ticks / os.sysconf("SC_CLK_TCK")


async def _until(what: str, check: Callable[[], Awaitable[bool]], seconds: float = 60) -> None:
    """Wait until the server is in a state (looked at every 50 ms; failing after `seconds`:
    a bound for a loaded machine, not a measure)."""
    try:
        async with asyncio.timeout(seconds):
            while True:
                if await check():
                    return
                await asyncio.sleep(0.05)  # another process's state: nothing to wait on here
    except TimeoutError:
        raise AssertionError(what) from None


async def _slow_search(base: str, token: str) -> asyncio.StreamWriter:
    """A search that runs for minutes, sent on a socket of its own (closed by the caller)."""
    port = int(base.rsplit(":", 1)[1])
    _, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(
        f"GET /api/search?q={SLOW_QUERY} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        f"x-auth-token: {token}\r\n\r\n".encode()
    )
    await writer.drain()
    return writer


async def _answers_at_once(http: aiohttp.ClientSession, base: str, password: str) -> None:
    """/api/health and a sign-in answer, each within a moment."""
    started = time.monotonic()
    async with http.get(f"{base}/api/health") as response:
        assert response.status == 200, await response.text()
    login = {"username": "admin", "password": password}
    async with http.post(f"{base}/api/auth/login", json=login) as response:
        assert response.status == 200, await response.text()
    assert time.monotonic() - started < 3


async def test_a_client_that_goes_away_ends_its_search(tmp_path: Path) -> None:
    """Two searches (both of the process's turns) running in the database; their clients
    close their connections: the statements stop, the turns and (SQLite) the searches' own
    connections are given back, and the portal answers at once throughout."""
    async with servers(tmp_path, 1, BFF_SEARCH_SECONDS="60") as at:
        [server] = at.started
        base, pgid = server.base, server.process.pid
        password = server_env(tmp_path)["BFF_ADMIN_PASSWORD"]
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=120)) as http:
            token = (await sign_in(http, base))["x-auth-token"]
            idle = _cpu_seconds(pgid)

            async def running() -> bool:
                gauges = await _gauges(http, base)
                if gauges["searches_running"] < 2:
                    return False
                if POSTGRES:
                    return int((await query_database(at.database_url, RUNNING))[0][0]) == 2
                # SQLite: both statements are counting, in the worker's threads.
                return gauges["search_connections"] == 2 and _cpu_seconds(pgid) > idle + 0.5

            async def ended() -> bool:
                gauges = await _gauges(http, base)
                if POSTGRES:
                    statements = int((await query_database(at.database_url, RUNNING))[0][0])
                    return gauges["searches_running"] == 0 and statements == 0
                # A search cut off closes its connection, which aiosqlite does in the thread
                # that ran its statement, after it: closed means stopped.
                return gauges == {"searches_running": 0, "search_connections": 0}

            sockets = [await _slow_search(base, token) for _ in range(2)]
            await _until("the searches never ran", running)
            await _answers_at_once(http, base, password)
            for writer in sockets:  # the tabs are closed
                writer.transport.abort()
            await _until("a search went on in the database", ended)
            await _answers_at_once(http, base, password)
            # The turns are free: a search answers at once (a turn still held would make it
            # wait for the 60 s of its budget).
            async with asyncio.timeout(30):
                async with http.get(
                    f"{base}/api/search", params={"q": "zebra"}, headers={"x-auth-token": token}
                ) as response:
                    assert response.status == 200, await response.text()
        log = server.log.read_text()
        assert "Traceback" not in log, log


async def test_the_search_limit_holds_across_two_instances_without_redis(
    tmp_path: Path,
) -> None:
    """Searches of one user alternating between two instances on one database, neither with
    Redis: 4 a minute in all, then 429 with Retry-After on either."""
    async with servers(tmp_path, 2, BFF_SEARCHES_PER_MINUTE="4") as at:
        first, second = (s.base for s in at.started)
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=60)) as http:
            headers = await sign_in(http, first)
            statuses = []
            for n in range(10):
                base = first if n % 2 == 0 else second
                async with http.get(
                    f"{base}/api/search", params={"q": "zebra"}, headers=headers
                ) as response:
                    statuses.append(response.status)
                    if response.status == 429:
                        assert 1 <= int(response.headers["Retry-After"]) <= 60
            assert statuses == [200] * 4 + [429] * 6
