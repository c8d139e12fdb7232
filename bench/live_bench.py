"""Live events benchmark: delay from an upload's response to its event at 200 clients.

Starts the BFF on 127.0.0.1 (SQLite, local disk) once as one process, then as two processes
sharing one Redis (database 14 of the local Redis), connects 200 Socket.IO clients (websocket
transport; with two processes, half on each), uploads small files through the first process
and prints, per setup, the median and p99 of the delay between the upload's HTTP response and
each client's receipt of the `file:uploaded` event (target: p99 under 100 ms).

Usage: .venv/bin/python bench/live_bench.py [--clients 200] [--uploads 20]
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import aiohttp
import socketio

# Run as a script (bench/x.py), the repo root is not on the path: the tooling lives there.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tools.devserver import ServerProcess, local_env

REPO = Path(__file__).resolve().parents[1]
ADMIN_PASSWORD = "live-bench-admin-password"
REDIS_URL = "redis://127.0.0.1:6379/14"


async def call(http: aiohttp.ClientSession, method: str, url: str, **kwargs: Any) -> Any:
    async with http.request(method, url, **kwargs) as response:
        if response.status >= 400:
            raise SystemExit(f"{method} {url} -> {response.status} {await response.text()}")
        return await response.json()


async def measure(bases: list[str], clients: int, uploads: int) -> list[float]:
    """Delays in ms from each upload's response to each client's event."""
    arrivals: dict[str, list[float]] = {}
    async with aiohttp.ClientSession() as http:
        token = (
            await call(
                http,
                "POST",
                f"{bases[0]}/api/auth/login",
                json={"username": "admin", "password": ADMIN_PASSWORD},
            )
        )["token"]
        headers = {"x-auth-token": token}
        for url, body in (
            ("/api/admin/containers", {"name": "bench-live"}),
            ("/api/admin/containers/bench-live/folders", {"name": "patient-1"}),
        ):
            async with http.post(bases[0] + url, json=body, headers=headers) as response:
                assert response.status in (201, 409)
        sockets = []
        for index in range(clients):
            client = socketio.AsyncClient(reconnection=False)

            async def on_upload(data: dict[str, Any]) -> None:
                arrivals.setdefault(data["name"], []).append(time.perf_counter())

            client.on("file:uploaded", on_upload)
            await client.connect(
                bases[index % len(bases)], auth={"token": token}, transports=["websocket"]
            )
            sockets.append(client)
        delays: list[float] = []
        try:
            for n in range(uploads):
                name = f"bench-{n}-{time.time_ns()}.txt"
                form = aiohttp.FormData()
                form.add_field("filename", name)
                form.add_field("file", b"live bench", filename=name)
                await call(
                    http,
                    "POST",
                    f"{bases[0]}/api/blobs/bench-live/patient-1",
                    data=form,
                    headers=headers,
                )
                responded = time.perf_counter()
                deadline = responded + 5
                while len(arrivals.get(name, [])) < clients and time.perf_counter() < deadline:  # noqa: ASYNC110
                    await asyncio.sleep(0.005)
                got = arrivals.get(name, [])
                if len(got) < clients:
                    print(f"# upload {n}: only {len(got)} of {clients} clients got the event")
                delays.extend(max(0.0, (t - responded) * 1000) for t in got)
                await asyncio.sleep(0.05)
        finally:
            for client in sockets:
                await client.disconnect()
    return delays


def report(label: str, delays: list[float]) -> None:
    delays = sorted(delays)
    p99 = delays[max(0, int(len(delays) * 0.99) - 1)]
    mark = "meets target" if p99 < 100 else "MISSES target"
    print(f"{label} median: {statistics.median(delays):.1f} ms", flush=True)
    print(f"{label} p99: {p99:.1f} ms  (target < 100 ms)  [{mark}]", flush=True)


async def run(args: argparse.Namespace) -> None:
    root = Path(tempfile.mkdtemp(prefix="bff-live-bench-"))
    try:
        one = ServerProcess(local_env(root / "one", admin_password=ADMIN_PASSWORD))
        try:
            report(
                f"one process, {args.clients} clients",
                await measure([one.base], args.clients, args.uploads),
            )
        finally:
            one.stop()
        two = local_env(root / "two", admin_password=ADMIN_PASSWORD, redis_url=REDIS_URL)
        first = ServerProcess(two)
        second = ServerProcess(two)
        try:
            report(
                f"two processes + Redis, {args.clients} clients",
                await measure([first.base, second.base], args.clients, args.uploads),
            )
        finally:
            first.stop()
            second.stop()
    finally:
        shutil.rmtree(root, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=200)
    parser.add_argument("--uploads", type=int, default=20)
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
