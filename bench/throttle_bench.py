"""What the sign-in throttle's count costs per attempt (issue 48, item 2): in Redis (how it was
counted before; a Redis outage then left each process counting alone) beside the database
(SQLite, and a throwaway database on the local PostgreSQL), where it is counted now, with or
without Redis.

For each store, the sign-in throttle's three keys (pair, address, username back-off), in one
process, one attempt at a time, then 8 at once:
- wrong: an attempt counted and kept (a wrong password), on keys of its own each time;
- right: counted, given back and its pair cleared (a right password);
- refused: an attempt at a pair already at its limit, counted by another process (429).
Then one password check (argon2, the work every admitted attempt does) for scale.

    .venv/bin/python bench/throttle_bench.py [--attempts 400]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bff.auth.passwords import hash_password, verify_password
from bff.db import close_db, init_db, migrate
from bff.throttle import FailureCounter, Limit
from config.settings import Settings, load_settings
from tools.devserver import running_redis, throwaway_postgres

WINDOW = 900


def _limits(n: int) -> list[Limit]:
    return [
        Limit(f"pair:user-{n}\n10.0.{n % 250}.{n // 250 % 250}", 5),
        Limit(f"addr:10.0.{n % 250}.{n // 250 % 250}", 30),
        Limit(f"user:user-{n}", 100, backoff=True),
    ]


async def _timed(attempts: int, at_once: int, one: Callable[[int], Awaitable[None]]) -> str:
    """p50 / p99 of one attempt (ms), and attempts a second."""
    took: list[float] = []

    async def timed(n: int) -> None:
        started = time.perf_counter()
        await one(n)
        took.append(time.perf_counter() - started)

    started = time.perf_counter()
    for first in range(0, attempts, at_once):
        await asyncio.gather(*(timed(n) for n in range(first, min(first + at_once, attempts))))
    rate = attempts / (time.perf_counter() - started)
    took.sort()
    p99 = took[min(len(took) - 1, int(len(took) * 0.99))]
    return f"p50 {1000 * statistics.median(took):6.2f} ms  p99 {1000 * p99:6.2f} ms  {rate:6.0f}/s"


async def _store(name: str, settings: Settings, durable: bool, attempts: int) -> None:
    ours = FailureCounter(settings, "bench", WINDOW, durable=durable)
    other = FailureCounter(settings, "bench", WINDOW, durable=durable)  # another process
    base = [0]

    async def wrong(n: int) -> None:
        _, wait = await ours.reserve(_limits(base[0] + n))
        assert wait is None

    async def right(n: int) -> None:
        limits = _limits(base[0] + n)
        reservation, wait = await ours.reserve(limits)
        assert wait is None
        await ours.release(reservation, [limit.key for limit in limits])
        await ours.clear(limits[0].key)

    held = [Limit("pair:held\n10.9.9.9", 5), Limit("addr:10.9.9.9", 1000)]
    for _ in range(5):
        await other.reserve(held)

    async def refused(_: int) -> None:
        assert (await ours.reserve(held))[1] is not None

    try:
        for label, one in (("wrong", wrong), ("right", right), ("refused", refused)):
            for at_once in (1, 8):
                base[0] += attempts
                figures = await _timed(attempts, at_once, one)
                print(f"{name:<22} {label:<8} {at_once} at once  {figures}")
    finally:
        await ours.aclose()
        await other.aclose()


async def _on(database_url: str, run_dir: Path, redis_url: str, attempts: int) -> None:
    settings = load_settings(database_url=database_url, var_dir=run_dir, redis_url=redis_url)
    await migrate(settings)
    await init_db(settings)
    try:
        kind = "PostgreSQL" if database_url.startswith("postgres") else "SQLite"
        await _store(f"database ({kind})", settings, True, attempts)
    finally:
        await close_db()


async def main(attempts: int) -> None:
    with tempfile.TemporaryDirectory() as tmp, running_redis() as redis:
        run_dir = Path(tmp)
        redis_settings = load_settings(
            database_url="sqlite://:memory:", var_dir=run_dir, redis_url=redis.url
        )
        await _store("Redis (before)", redis_settings, False, attempts)
        await _on(f"sqlite://{run_dir}/bench.sqlite3", run_dir, redis.url, attempts)
        async with throwaway_postgres("bff_throttle_bench") as url:
            await _on(url, run_dir, redis.url, attempts)
        stored = await hash_password("a password of some length")
        started = time.perf_counter()
        for _ in range(10):
            await verify_password(stored, "a wrong password", queue=True)
        took = (time.perf_counter() - started) / 10
        print(f"one password check (argon2): {1000 * took:.1f} ms")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--attempts", type=int, default=400)
    asyncio.run(main(parser.parse_args().attempts))
