"""Redis outage benchmark: how long a sign-out on one instance leaves the token working on
another, during a Redis outage and after Redis returns, and how soon live events cross again.

Starts a throwaway redis-server on a free port (never the machine's own) and two BFF
processes A and B on one SQLite file (or PostgreSQL with --postgres) sharing it, with the
default session cache (BFF_SESSION_CACHE_SECONDS=10) and session check (30 s). Then:

- during the outage (Redis killed): a nurse signs in on A, her session is read on B (cached
  there if B caches) and opens a socket on B, she signs out on A, and the times until B
  answers 401 and until B's socket gets session:revoked are measured;
- after Redis returns: the same probe, started repeatedly from 0.2 s after the restart;
- live delivery: from the restart, an upload on A every 0.25 s until an admin's socket on B
  receives its file:uploaded; and when that socket receives live:resync (if ever).

Prints one figure a line. Usage: .venv/bin/python bench/redis_outage_bench.py [--outage 20]
[--postgres]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import aiohttp
import socketio

# Run as a script (bench/x.py), the repo root is not on the path: the tooling lives there.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tools.devserver import RedisProcess, ServerProcess, local_env, throwaway_postgres

ADMIN_PASSWORD = "redis-outage-bench-admin"
NURSE = {"username": "outage.nurse", "password": "outage-nurse-password"}
GIVE_UP = 15.0  # seconds a probe waits for the 401


async def call(
    http: aiohttp.ClientSession, method: str, url: str, token: str = "", **kw: Any
) -> Any:
    headers = {"x-auth-token": token} if token else {}
    async with http.request(method, url, headers=headers, **kw) as response:
        if response.status >= 400:
            raise SystemExit(f"{method} {url} -> {response.status} {await response.text()}")
        return await response.json()


async def me_status(http: aiohttp.ClientSession, base: str, token: str) -> int:
    async with http.get(f"{base}/api/auth/me", headers={"x-auth-token": token}) as response:
        return response.status


async def revocation_window(http: aiohttp.ClientSession, a: str, b: str) -> tuple[float, float]:
    """Sign in on A, read the session on B twice and open a socket there with it, sign out on
    A: seconds until B refuses the token, and until B's socket gets session:revoked."""
    token = (await call(http, "POST", f"{a}/api/auth/login", json=NURSE))["token"]
    for _ in range(2):
        assert await me_status(http, b, token) == 200
    revoked = asyncio.Event()
    socket = socketio.AsyncClient(reconnection=False)
    socket.on("session:revoked", lambda *_: revoked.set())
    await socket.connect(b, auth={"token": token}, transports=["websocket"])
    try:
        await call(http, "POST", f"{a}/api/auth/logout", token)
        started = time.monotonic()
        refused = float("inf")
        while time.monotonic() - started < GIVE_UP:
            if await me_status(http, b, token) == 401:
                refused = time.monotonic() - started
                break
            await asyncio.sleep(0.01)
        try:
            await asyncio.wait_for(revoked.wait(), max(0.0, GIVE_UP - (time.monotonic() - started)))
            ended = time.monotonic() - started
        except TimeoutError:
            ended = float("inf")
        return refused, ended
    finally:
        with contextlib.suppress(Exception):
            await socket.disconnect()


def show(window: tuple[float, float]) -> str:
    return f"token refused after {window[0]:.3f} s, socket ended after {window[1]:.3f} s"


async def upload(http: aiohttp.ClientSession, a: str, token: str, name: str) -> None:
    form = aiohttp.FormData()
    form.add_field("file", b"outage", filename=name)
    await call(http, "POST", f"{a}/api/blobs/ward-o/p-1", token, data=form)


async def live_recovery(
    http: aiohttp.ClientSession, a: str, admin: str, received: dict[str, float], back: float
) -> float:
    """Upload on A every 0.25 s until B's socket receives one: seconds since Redis returned."""
    n = 0
    while time.monotonic() - back < 60:
        n += 1
        await upload(http, a, admin, f"after-{n}.txt")
        await asyncio.sleep(0.25)
        arrived = [t for name, t in received.items() if name.startswith("after-")]
        if arrived:
            return min(arrived) - back
    return float("inf")


async def run(outage: float, database_url: str) -> None:
    redis = RedisProcess()
    redis.start()
    root = Path(tempfile.mkdtemp(prefix="bff-redis-outage-"))
    env = local_env(root, redis_url=redis.url, admin_password=ADMIN_PASSWORD)
    if database_url:
        env["BFF_DATABASE_URL"] = database_url
    a_server = ServerProcess(env, log=root / "a.log")
    b_server = ServerProcess(env, log=root / "b.log")
    a, b = a_server.base, b_server.base
    received: dict[str, float] = {}
    resync: list[float] = []
    socket = socketio.AsyncClient(reconnection=False)

    async def on_upload(data: dict[str, Any]) -> None:
        received.setdefault(data["name"], time.monotonic())

    async def on_resync(*_: Any) -> None:
        resync.append(time.monotonic())

    socket.on("file:uploaded", on_upload)
    socket.on("live:resync", on_resync)
    try:
        async with aiohttp.ClientSession() as http:
            login = {"username": "admin", "password": ADMIN_PASSWORD}
            admin = (await call(http, "POST", f"{a}/api/auth/login", json=login))["token"]
            body = {"name": "Nurse", "role": "nurse", **NURSE}
            await call(http, "POST", f"{a}/api/auth/register", admin, json=body)
            await call(http, "POST", f"{a}/api/admin/containers", admin, json={"name": "ward-o"})
            folders = f"{a}/api/admin/containers/ward-o/folders"
            await call(http, "POST", folders, admin, json={"name": "p-1"})
            await socket.connect(b, auth={"token": admin}, transports=["websocket"])
            print(f"before the outage: {show(await revocation_window(http, a, b))}")

            redis.stop()
            down = time.monotonic()
            await asyncio.sleep(1)
            for _ in range(3):
                print(f"during the outage: {show(await revocation_window(http, a, b))}")
            await asyncio.sleep(max(0.0, outage - (time.monotonic() - down)))

            redis.start()
            back = time.monotonic()
            print(f"Redis down for {back - down:.1f} s, now back")
            live = asyncio.create_task(live_recovery(http, a, admin, received, back))
            await asyncio.sleep(0.2)
            while time.monotonic() - back < 15:
                offset = time.monotonic() - back
                window = await revocation_window(http, a, b)
                print(f"after Redis returned: sign-out at +{offset:.1f} s: {show(window)}")
                await asyncio.sleep(0.5)
            print(f"live events A->B again {await live:.2f} s after Redis returned")
            if resync:
                print(f"live:resync on B's socket {resync[0] - back:.2f} s after Redis returned")
            else:
                print("live:resync never received")
    finally:
        with contextlib.suppress(Exception):
            await socket.disconnect()
        a_server.stop()
        b_server.stop()
        redis.stop()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--outage", type=float, default=20.0, help="seconds Redis stays down")
    parser.add_argument("--postgres", action="store_true", help="on a throwaway PostgreSQL")
    args = parser.parse_args()
    if args.postgres:
        async with throwaway_postgres("bff_outage_bench") as url:
            await run(args.outage, url)
    else:
        await run(args.outage, "")


if __name__ == "__main__":
    asyncio.run(main())
