"""Database restart behind nginx: how long a PostgreSQL restart shows as errors, and how many
requests fail, at a steady load through the cluster's nginx (issue 31 point 2).

Starts what `make cluster` runs (tools/devcluster.py's Cluster: migrations, two instances,
nginx from config/nginx/bff.conf.template) on a throwaway PostgreSQL server of its own (never
the machine's), a throwaway redis-server and local file storage. Then --clients readers of the
admin dashboard through nginx (each sends its next request when the last one is answered) for
--seconds; after --before seconds PostgreSQL is restarted (`pg_ctl stop -m fast`, then
`start`, as an operator's restart or a failover does).

Prints one figure a line: the restart's own duration, requests answered, failed (anything but
200), error seconds (first to last failed answer), and the failed answers by status.
Usage: .venv/bin/python bench/db_restart_bench.py [--clients 8] [--seconds 10] [--before 3]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import aiohttp

# Run as a script (bench/x.py), the repo root is not on the path: the tooling lives there.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tools.devcluster import Cluster
from tools.devserver import own_postgres, running_redis

ADMIN_PASSWORD = "db-restart-bench-admin"


async def load(
    base: str, clients: int, seconds: float, before: float, restart: Callable[[], None]
) -> tuple[list[tuple[float, int]], float, float]:
    """(time since the start, status) of every request of the run, when the restart began and
    how long it took."""
    answers: list[tuple[float, int]] = []
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=60)) as http:
        login = {"username": "admin", "password": ADMIN_PASSWORD}
        async with http.post(f"{base}/api/auth/login", json=login) as response:
            token = (await response.json())["token"]
        headers = {"x-auth-token": token}
        started = time.monotonic()

        async def reader() -> None:
            while time.monotonic() - started < seconds:
                async with http.get(f"{base}/api/users/dashboard", headers=headers) as response:
                    await response.read()
                    answers.append((time.monotonic() - started, response.status))

        readers = [asyncio.create_task(reader()) for _ in range(clients)]
        await asyncio.sleep(before)
        restart_at = time.monotonic() - started
        await asyncio.to_thread(restart)
        took = time.monotonic() - started - restart_at
        await asyncio.gather(*readers)
    return answers, restart_at, took


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--before", type=float, default=3.0, help="seconds before the restart")
    args = parser.parse_args()
    with contextlib.ExitStack() as stack:
        postgres = stack.enter_context(own_postgres())
        redis = stack.enter_context(running_redis())
        root = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="bff-dbr-")))
        cluster = Cluster(
            root=root,
            database_url=postgres.url,
            redis_url=redis.url,
            storage_url=f"file://{root}/storage",
            settings={"admin_password": ADMIN_PASSWORD},
        )
        cluster.start()
        stack.callback(cluster.stop)
        answers, restart_at, took = await load(
            cluster.base, args.clients, args.seconds, args.before, postgres.restart
        )
    failed = [(at, status) for at, status in answers if status != 200]
    window = failed[-1][0] - failed[0][0] if failed else 0.0
    print(f"restart (pg_ctl stop -m fast; start): {took:.2f} s at {restart_at:.1f} s")
    print(f"requests answered: {len(answers)} ({len(answers) / args.seconds:.0f}/s)")
    print(f"failed requests: {len(failed)}")
    print(f"error seconds (first to last failure): {window:.2f}")
    print(f"failed by status: {dict(Counter(status for _, status in failed))}")


if __name__ == "__main__":
    asyncio.run(main())
