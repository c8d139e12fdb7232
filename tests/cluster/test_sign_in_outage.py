"""The sign-in limit through a Redis outage, replayed on the production shape (issue 48, item
2): two instances of two Hypercorn workers each (config/hypercorn.production.toml's), behind
nginx from the template, on PostgreSQL and a Redis of the test's own that is killed and started
again empty. Wrong passwords arrive on fresh connections, two at a time, through nginx and at
each instance directly (with the address nginx would pass on), so every worker takes its share.

Before the fix each process counted alone while Redis was down: 5 per process, 20 in all."""

from __future__ import annotations

import asyncio
import itertools
import secrets
from collections import Counter
from collections.abc import Iterator

import aiohttp
import asyncpg  # type: ignore[import-untyped]
import pytest

from tests.cluster.conftest import ADMIN_PASSWORD, call, sign_in, started_cluster
from tools.devcluster import Cluster
from tools.devserver import RedisProcess

LIMIT = 5  # BFF_LOGIN_MAX_FAILURES's default
TOO_MANY = "Too many failed sign-in attempts. Please try again in"
PASSWORD = "cluster-staff-" + secrets.token_hex(8)


@pytest.fixture(scope="module")
def production(
    tmp_path_factory: pytest.TempPathFactory, cluster_db: str, redis: RedisProcess, s3_endpoint: str
) -> Iterator[Cluster]:
    root = tmp_path_factory.mktemp("outage")
    with started_cluster(root, cluster_db, redis, s3_endpoint, {}, workers=2) as running:
        yield running


class Attacker:
    """Wrong passwords on fresh connections, spread over nginx and both instances."""

    def __init__(self, cluster: Cluster) -> None:
        bases = [cluster.base, cluster.instance_base(0), cluster.base, cluster.instance_base(1)]
        self._bases = itertools.cycle(bases)

    async def _one(self, username: str, base: str) -> int:
        connector = aiohttp.TCPConnector(force_close=True)  # a new connection: any worker
        async with (
            aiohttp.ClientSession(connector=connector) as http,
            http.post(
                f"{base}/api/auth/login",
                json={"username": username, "password": "not the password"},
                headers={"X-Forwarded-For": "127.0.0.1"},  # what nginx passes on for us
            ) as response,
        ):
            if response.status == 429:
                assert (await response.json())["message"].startswith(TOO_MANY)
                assert int(response.headers["Retry-After"]) > 0
            return response.status

    async def attempts(self, username: str, times: int) -> Counter[int]:
        """times wrong passwords for username, two at once."""
        statuses: Counter[int] = Counter()
        for start in range(0, times, 2):
            pair = [self._one(username, next(self._bases)) for _ in range(min(2, times - start))]
            statuses.update(await asyncio.gather(*pair))
        return statuses


async def _evaluated(database_url: str, username: str) -> int:
    """Wrong passwords checked for username: its login_failed entries in the audit log."""
    conn = await asyncpg.connect(database_url)
    try:
        count: int = await conn.fetchval(
            "SELECT count(*) FROM audit_logs WHERE operation = 'login_failed' AND name = $1",
            username,
        )
    finally:
        await conn.close()
    return count


async def test_five_wrong_passwords_per_account_through_a_redis_outage(
    production: Cluster, redis: RedisProcess, cluster_db: str
) -> None:
    """Redis stops: a fresh account gets 5 wrong passwords checked of 20 (the rest 429 "Too
    many failed sign-in attempts"), one already at its limit none of 10, everything else keeps
    serving; Redis returns empty: accounts with 3 failures (before or during the outage) get 2
    more of 10."""
    tag = secrets.token_hex(3)
    names = {k: f"{k}-{tag}" for k in ("fresh", "at-limit", "three-before", "three-during")}
    attacker = Attacker(production)
    async with aiohttp.ClientSession() as http:
        admin = await sign_in(http, production.base, "admin", ADMIN_PASSWORD)
        for username in names.values():
            body = {"name": username, "username": username, "password": PASSWORD, "role": "nurse"}
            await call(http, "POST", f"{production.base}/api/auth/register", admin, json=body)

        assert await attacker.attempts(names["at-limit"], LIMIT + 1) == {401: 5, 429: 1}
        assert await attacker.attempts(names["three-before"], 3) == {401: 3}
        redis.stop()
        try:
            fresh = await attacker.attempts(names["fresh"], 20)
            assert fresh == {401: LIMIT, 429: 20 - LIMIT}
            assert await attacker.attempts(names["at-limit"], 10) == {429: 10}
            assert await attacker.attempts(names["three-during"], 3) == {401: 3}
            # Everything else keeps serving: the admin signs in and reads.
            again = await sign_in(http, production.base, "admin", ADMIN_PASSWORD)
            await call(http, "GET", f"{production.base}/api/auth/me", again)
        finally:
            redis.start()  # empty: it was killed, and it saves nothing
        for key in ("three-before", "three-during"):
            assert await attacker.attempts(names[key], 10) == {401: 2, 429: 8}
    for username in names.values():
        assert await _evaluated(cluster_db, username) == LIMIT
