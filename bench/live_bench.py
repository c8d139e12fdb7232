"""Live updates at hospital scale: 2,000 Socket.IO connections on one instance, then across two
instances sharing Redis, both behind nginx (config/nginx/bff.conf.template).

Each setup runs on a throwaway PostgreSQL database seeded like bench/load_bench.py (50 staff,
200 folders, each assigned to a care team of 3), with --sessions signed-in sessions of those
staff (every connection uses one; one connection in 100 is an admin's). The clients live in
--processes separate processes (several `socketio.AsyncClient`s each, websocket transport),
so the server never shares an interpreter with them. Printed, per setup, one figure a line:

- connect storm: every client starts connecting at the same moment; the time until the last
  one is connected (target: 2,000 within 10 s), and refusals;
- memory per connection: the instances' resident memory (every process of each instance)
  after the storm minus before, over the connections (target: under 100 KB);
- event delay: while 100 simulated staff work at the stress pace (bench/load_bench.py's
  journeys, 0.5 s between steps, in their own process), an admin uploads --uploads files into
  one folder; for each, the delay from the upload's HTTP response to the `file:uploaded`
  event at every connection that receives it (the folder's care team and admins): median,
  p99 (target: p99 under 250 ms), and how many connections each event reached.

`--profile PREFIX` records the first instance with py-spy (`pip install py-spy` into the venv
first; a diagnostic tool, not a dependency) into PREFIX-N.json (speedscope format).

Every loop is bounded in count and time. Usage:
    .venv/bin/python bench/live_bench.py [--clients 2000] [--processes 4] [--uploads 40]
        [--setups one two]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import multiprocessing
import os
import resource
import secrets
import shutil
import statistics
import sys
import tempfile
import time
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import aiohttp

# Run as a script (bench/x.py), the repo root is not on the path: the tooling lives there.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))  # its sibling load_bench.py
from load_bench import (
    ADMIN_PASSWORD,
    in_child,
    run_journeys,
    seed,
    sign_in_all,
)

from tools.devcluster import Cluster
from tools.devserver import (
    RedisProcess,
    create_postgres_database,
    drop_postgres_database,
)

KB = 1024
STORM_LIMIT = 60.0  # seconds the connect storm may take before the bench stops waiting
TARGET_STORM_SECONDS = 10.0
TARGET_KB_PER_CONNECTION = 100.0
TARGET_P99_MS = 250.0
STRESS_THINK = 0.5  # seconds between a simulated member of staff's steps (load_bench's stress)


def raise_file_limit() -> None:
    """Allow as many open files as the hard limit (each connection is one)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


# --- a client process -----------------------------------------------------------------------


def client_process(conn: Connection, base: str, tokens: list[str]) -> None:
    """Entry point of one client process: len(tokens) Socket.IO clients."""
    raise_file_limit()
    asyncio.run(_clients(conn, base, tokens))


async def _clients(conn: Connection, base: str, tokens: list[str]) -> None:
    import socketio

    arrivals: list[tuple[str, float]] = []
    clients: list[Any] = []

    async def on_upload(data: dict[str, Any]) -> None:
        arrivals.append((str(data.get("name", "")), time.time()))

    async def connect(token: str) -> float | None:
        client = socketio.AsyncClient(reconnection=False)
        client.on("file:uploaded", on_upload)
        clients.append(client)
        try:
            await client.connect(
                base, auth={"token": token}, transports=["websocket"], wait_timeout=STORM_LIMIT
            )
        except (socketio.exceptions.ConnectionError, OSError, TimeoutError):
            return None
        return time.time()

    conn.send("ready")
    while True:
        command = await asyncio.to_thread(conn.recv)
        if command == "go":
            try:
                async with asyncio.timeout(STORM_LIMIT):
                    done = await asyncio.gather(*(connect(token) for token in tokens))
            except TimeoutError:
                done = [None] * len(tokens)
            connected = [t for t in done if t is not None]
            conn.send((len(connected), len(tokens) - len(connected), max(connected, default=0.0)))
        elif command == "report":
            still = sum(1 for client in clients if client.connected)
            conn.send((arrivals, still))
        else:  # "close"
            with contextlib.suppress(Exception):
                async with asyncio.timeout(30):
                    await asyncio.gather(
                        *(c.disconnect() for c in clients if c.connected), return_exceptions=True
                    )
            conn.send("closed")
            return


# --- measuring the instances ----------------------------------------------------------------


def group_rss(pgid: int) -> int:
    """Resident bytes of every process in a process group."""
    total = 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
            if int(stat.rsplit(")", 1)[1].split()[2]) != pgid:
                continue
            for line in Path(f"/proc/{entry}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) * KB
        except (OSError, ValueError, IndexError):
            continue
    return total


def cluster_rss(cluster: Cluster) -> int:
    return sum(group_rss(pid) for pid in cluster.pids() if pid is not None)


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[max(0, int(len(ordered) * p / 100) - 1)]


# --- one setup --------------------------------------------------------------------------------


async def post_json(http: aiohttp.ClientSession, url: str, token: str = "", **kw: Any) -> Any:
    headers = {"x-auth-token": token} if token else {}
    async with http.request(kw.pop("method", "GET"), url, headers=headers, **kw) as response:
        if response.status >= 400:
            raise SystemExit(f"{url}: {response.status} {await response.text()}")
        return await response.json()


async def upload_timed(
    http: aiohttp.ClientSession, base: str, folder: str, token: str, count: int
) -> dict[str, float]:
    """count uploads, one every 0.25 s; each name -> the time its response arrived."""
    answered: dict[str, float] = {}
    for n in range(count):
        name = f"live-bench-{n}-{secrets.token_hex(3)}.txt"
        form = aiohttp.FormData()
        form.add_field("filename", name)
        form.add_field("file", b"live bench\n", filename=name)
        async with http.post(
            f"{base}/api/blobs/{folder}", data=form, headers={"x-auth-token": token}
        ) as response:
            await response.read()
            if response.status == 201:
                answered[name] = time.time()
        await asyncio.sleep(0.25)
    return answered


async def run_setup(label: str, instances: int, args: argparse.Namespace, root: Path) -> None:
    db_name = "bff_live_bench_" + secrets.token_hex(4)
    database = await create_postgres_database(db_name)
    redis = RedisProcess() if instances > 1 else None
    if redis is not None:
        redis.start()
    home = root / f"{instances}-instances"  # no spaces: nginx's configuration names it
    cluster = Cluster(
        root=home,
        database_url=database,
        redis_url=redis.url if redis else "",
        storage_url=f"file://{home / 'storage'}",
        instances=instances,
        settings={"admin_password": ADMIN_PASSWORD, "secret_key": secrets.token_urlsafe(48)},
    )
    pipes: list[Connection] = []
    processes: list[multiprocessing.process.BaseProcess] = []
    try:
        await asyncio.to_thread(cluster.start)
        await asyncio.to_thread(seed, cluster.env())
        base = cluster.base
        users, _ = await sign_in_all(base, args.sessions)
        async with aiohttp.ClientSession() as http:
            admin = (
                await post_json(
                    http,
                    f"{base}/api/auth/login",
                    method="POST",
                    json={"username": "admin", "password": ADMIN_PASSWORD},
                )
            )["token"]
            mine = await post_json(http, f"{base}/api/assignments/my-assignments", users[0].token)
            first = mine["assignments"][0]
            folder = f"{first['containerName']}/{first['folders'][0]['folderName']}"
        tokens = [
            admin if n % 100 == 99 else users[n % len(users)].token for n in range(args.clients)
        ]
        before = cluster_rss(cluster)

        context = multiprocessing.get_context("spawn")
        share = -(-args.clients // args.processes)
        for index in range(args.processes):
            mine_tokens = tokens[index * share : (index + 1) * share]
            if not mine_tokens:
                break
            parent, child = context.Pipe()
            process = context.Process(target=client_process, args=(child, base, mine_tokens))
            process.start()
            pipes.append(parent)
            processes.append(process)
        for pipe in pipes:
            if not await asyncio.to_thread(pipe.poll, 60) or pipe.recv() != "ready":
                raise SystemExit("a client process did not start")
        profiler = None
        if args.profile:  # py-spy over the first instance during the storm and the uploads
            profiler = await asyncio.create_subprocess_exec(
                "py-spy",
                "record",
                "--subprocesses",
                "--format",
                "speedscope",
                "--duration",
                "45",
                "--rate",
                "50",
                "-o",
                f"{args.profile}-{instances}.json",
                "--pid",
                str(cluster.pids()[0]),
                stdout=asyncio.subprocess.DEVNULL,
                stderr=asyncio.subprocess.DEVNULL,
            )
            await asyncio.sleep(1)
        go = time.time()
        for pipe in pipes:
            pipe.send("go")
        connected = refused = 0
        last = go
        for pipe in pipes:
            if not await asyncio.to_thread(pipe.poll, STORM_LIMIT + 30):
                raise SystemExit("a client process did not report its connections")
            ok, failed, at = pipe.recv()
            connected, refused, last = connected + ok, refused + failed, max(last, at)
        storm = last - go
        mark = "meets" if storm <= TARGET_STORM_SECONDS and not refused else "MISSES"
        print(
            f"{label}: connect storm {connected} connected in {storm:.1f} s, {refused} refused"
            f" (target {args.clients} within {TARGET_STORM_SECONDS:.0f} s)  [{mark} target]",
            flush=True,
        )
        await asyncio.sleep(3)  # let the connections settle (first pings, buffers)
        after = cluster_rss(cluster)
        per = (after - before) / max(1, connected) / KB
        mark = "meets" if per < TARGET_KB_PER_CONNECTION else "MISSES"
        print(
            f"{label}: memory {before / KB / KB:.0f} MB before, {after / KB / KB:.0f} MB with"
            f" {connected} connections: {per:.1f} KB per connection"
            f" (target < {TARGET_KB_PER_CONNECTION:.0f} KB)  [{mark} target]",
            flush=True,
        )

        staff = asyncio.create_task(
            asyncio.to_thread(
                in_child, run_journeys, base, users[:100], 1000, STRESS_THINK, args.seconds
            )
        )
        await asyncio.sleep(2)  # the staff are at work before the measured uploads start
        async with aiohttp.ClientSession() as http:
            answered = await upload_timed(http, base, folder, admin, args.uploads)
        results = await staff
        if profiler is not None:
            await profiler.wait()
        await asyncio.sleep(2)  # late events still count (and show in the p99)
        arrivals: list[tuple[str, float]] = []
        still = 0
        for pipe in pipes:
            pipe.send("report")
            got, alive = await asyncio.to_thread(pipe.recv)
            arrivals.extend(got)
            still += alive
        delays = [(at - answered[name]) * 1000 for name, at in arrivals if name in answered]
        reached = [sum(1 for name, _ in arrivals if name == sent) for sent in answered]
        if not delays:
            print(f"{label}: no event arrived", flush=True)
            return
        mark = "meets" if pct(delays, 99) < TARGET_P99_MS else "MISSES"
        print(
            f"{label}: upload response -> event, {len(answered)} uploads x"
            f" {min(reached)}-{max(reached)} recipients: median {statistics.median(delays):.1f} ms,"
            f" p99 {pct(delays, 99):.1f} ms, max {max(delays):.1f} ms"
            f" (target p99 < {TARGET_P99_MS:.0f} ms)  [{mark} target]",
            flush=True,
        )
        errors = sum(results.errors.values())
        latencies = [ms for samples in results.latencies.values() for ms in samples] or [0.0]
        print(
            f"{label}: meanwhile 100 staff at the stress pace: {results.requests} requests"
            f" ({results.requests / max(results.seconds, 0.001):.0f}/s, median"
            f" {statistics.median(latencies):.0f} ms, p99 {pct(latencies, 99):.0f} ms),"
            f" {errors} errors; {still} of {connected} connections still open",
            flush=True,
        )
        kinds = ", ".join(f"{kind} {len(v)}" for kind, v in results.latencies.items())
        print(f"{label}: the staff's requests by kind: {kinds}", flush=True)
    finally:
        for pipe in pipes:
            with contextlib.suppress(Exception):
                pipe.send("close")
        for pipe, worker in zip(pipes, processes, strict=False):
            with contextlib.suppress(Exception):
                if await asyncio.to_thread(pipe.poll, 40):
                    pipe.recv()
            await asyncio.to_thread(worker.join, 10)
            if worker.is_alive():
                worker.kill()
        await asyncio.to_thread(cluster.stop)
        if redis is not None:
            redis.stop()
        await drop_postgres_database(db_name)


async def run(args: argparse.Namespace) -> None:
    raise_file_limit()
    print(
        "# clients, simulated staff and servers share this 2-core machine: figures are a floor",
        flush=True,
    )
    root = Path(tempfile.mkdtemp(prefix="bff-live-bench-"))
    try:
        for setup in args.setups:
            instances = 1 if setup == "one" else 2
            label = (
                f"one instance, {args.clients} clients"
                if instances == 1
                else f"two instances + Redis, {args.clients} clients"
            )
            await run_setup(label, instances, args, root)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=2000)
    parser.add_argument("--processes", type=int, default=4)
    parser.add_argument("--sessions", type=int, default=400)
    parser.add_argument("--uploads", type=int, default=40)
    parser.add_argument("--seconds", type=float, default=30.0, help="the staff's time limit")
    parser.add_argument("--profile", default="", help="py-spy output prefix (speedscope)")
    parser.add_argument("--setups", nargs="+", choices=["one", "two"], default=["one", "two"])
    args = parser.parse_args()
    if not (
        1 <= args.clients <= 10_000
        and 1 <= args.processes <= 32
        and 100 <= args.sessions <= 2_000
        and 1 <= args.uploads <= 1_000
        and 5 <= args.seconds <= 600
    ):
        raise SystemExit(
            "--clients 1..10000, --processes 1..32, --sessions 100..2000, --uploads 1..1000,"
            " --seconds 5..600"
        )
    asyncio.run(run(args))


if __name__ == "__main__":
    main()
