"""PostgreSQL going away briefly: requests answer 503 with a message at once (no hang, no
traceback), and the service recovers by itself when the database returns."""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import aiohttp
import pytest

from tests.cluster.conftest import ADMIN_PASSWORD, sign_in
from tools.devserver import OwnPostgres, ServerProcess, local_env, own_postgres


@pytest.fixture
def postgres() -> Iterator[OwnPostgres]:
    with own_postgres() as server:
        yield server


async def test_a_database_outage_is_503_then_recovers(
    postgres: OwnPostgres, tmp_path: Path
) -> None:
    env = local_env(tmp_path, database_url=postgres.url, admin_password=ADMIN_PASSWORD)
    server = ServerProcess(env)
    try:
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=15)) as http:
            token = await sign_in(http, server.base, "admin", ADMIN_PASSWORD)
            headers = {"x-auth-token": token}
            url = f"{server.base}/api/users/dashboard"
            async with http.get(url, headers=headers) as response:
                assert response.status == 200
            postgres.stop()
            for probe in (url, f"{server.base}/api/health"):
                started = time.monotonic()
                async with http.get(probe, headers=headers) as response:
                    assert response.status == 503, probe
                    body = await response.json()
                assert "unavailable" in body["message"].lower()
                assert "Traceback" not in body["message"]
                assert time.monotonic() - started < 5  # an answer, not a hang
            postgres.start()
            deadline = time.monotonic() + 30
            while True:
                async with http.get(url, headers=headers) as response:
                    if response.status == 200:
                        break
                assert time.monotonic() < deadline, "the service did not recover by itself"
                time.sleep(0.5)  # noqa: ASYNC251 - a pause between probes of another process
    finally:
        server.stop()


RESTARTS = 2
CLIENTS = 8


async def _reads_through_restarts(
    postgres: OwnPostgres, tmp_path: Path, retry_seconds: str
) -> tuple[Counter[int], list[tuple[int, str, str | None]]]:
    """CLIENTS readers of the dashboard on one instance while PostgreSQL restarts RESTARTS
    times (fast shutdown, then start): how many answers of each status, and every answer that
    is neither a success nor the 503 of an unavailable database (with its Retry-After). Then
    checks that the next requests all succeed: no dead connection is left in the pool."""
    env = local_env(
        tmp_path,
        database_url=postgres.url,
        admin_password=ADMIN_PASSWORD,
        database_retry_seconds=retry_seconds,
    )
    server = ServerProcess(env)
    try:
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=30)) as http:
            token = await sign_in(http, server.base, "admin", ADMIN_PASSWORD)
            headers = {"x-auth-token": token}
            url = f"{server.base}/api/users/dashboard"
            answers: Counter[int] = Counter()
            wrong: list[tuple[int, str, str | None]] = []
            done = asyncio.Event()

            async def client() -> None:
                for _ in range(5000):  # bounded: the restarts take about a second each
                    if done.is_set():
                        return
                    async with http.get(url, headers=headers) as response:
                        answers[response.status] += 1
                        if response.status != 200:
                            body = await response.json()
                            retry = response.headers.get("Retry-After")
                            unavailable = response.status == 503 and retry == "5"
                            if not unavailable or "unavailable" not in body["message"]:
                                wrong.append((response.status, body["message"], retry))

            clients = [asyncio.create_task(client()) for _ in range(CLIENTS)]
            try:
                await asyncio.sleep(0.5)
                for _ in range(RESTARTS):
                    await asyncio.to_thread(postgres.restart)
                    await asyncio.sleep(0.5)
            finally:
                done.set()
                await asyncio.gather(*clients)
            print("answers:", dict(answers))
            for _ in range(40):
                async with http.get(url, headers=headers) as response:
                    assert response.status == 200
        return answers, wrong
    finally:
        server.stop()


async def test_a_database_restart_under_load_is_200_or_503_never_500(
    postgres: OwnPostgres, tmp_path: Path
) -> None:
    """Each answer during a restart is a success or the 503 of an unavailable database, never
    a 500 ("terminating connection due to administrator command", "the database system is
    starting up", a connection closed in the middle of a query, or a dead pooled connection
    handed to the next request: asyncpg's "another operation is in progress"). Reads are not
    run again here (BFF_DATABASE_RETRY_SECONDS=0), so every failure reaches the client."""
    answers, wrong = await _reads_through_restarts(postgres, tmp_path, retry_seconds="0")
    assert not wrong, wrong[:5]
    assert answers[503] > 0, "the restarts were not seen: nothing tested"


async def test_a_read_during_a_database_restart_waits_for_it(
    postgres: OwnPostgres, tmp_path: Path
) -> None:
    """Reads are run again while the database connection fails (for up to
    BFF_DATABASE_RETRY_SECONDS, long enough here for a slow machine's restart): a restart is a
    slower answer, not a failure."""
    answers, wrong = await _reads_through_restarts(postgres, tmp_path, retry_seconds="20")
    assert not wrong, wrong[:5]
    assert set(answers) == {200}, answers
