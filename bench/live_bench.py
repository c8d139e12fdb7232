"""Live connections at hospital scale: N Socket.IO connections on one instance (started from
the Procfile), or across two instances sharing Redis behind nginx (tools/devcluster.py).

Each run starts a fresh server on a throwaway PostgreSQL database seeded by the scale demo, and
signs one nurse in --sessions times; the clients are the web app's own library
(socket.io-client, websocket transport, `auth: {token}`) in --processes separate `node`
processes (bench/live_clients.mjs), each connection one of the nurse's sessions, so every
socket is in the room of the nurse's folders. Each process creates its connections --batch at a
time with its event loop's turn between, as browser tabs send their upgrade requests each as
soon as its connection is made (0: all in one go, every request then held back until the last
connection is created). Printed per run, with the load average:

- connect storm: all N clients start at once; the time until the last is connected, and how
  many failed within STORM_LIMIT (target: 5,000 within 15 s, none failed), of them how many the
  server refused for their address (every client is 127.0.0.1, as a site behind one NAT:
  BFF_LIVE_UNCONNECTED_PER_ADDRESS) or closed before they connected (BFF_LIVE_CONNECT_SECONDS);
  with `--retry` a client that fails tries again as the web app's do (socket.io-client's
  reconnection, with the web app's delays), and the line says how many needed to;
- memory: the Hypercorn worker's resident memory (/proc/PID/status VmRSS, the process holding
  the sockets; with two instances both workers) with the connections minus before, over the
  connections (target: under 50 KB);
- idle CPU: the workers' CPU time with every connection open and nothing sent (pings only);
- fan-out: an admin uploads --uploads files into one of the nurse's folders, one every
  --spacing seconds; for each, the delay from the upload's HTTP response to its
  `file:uploaded` event at every socket: median and p99 (target p99: 100 ms at 2,000,
  250 ms at 5,000), and the workers' CPU microseconds per delivered event (CPU during the
  uploads minus the idle rate, over the `file:uploaded` events delivered; the uploads
  themselves included) and per event written (over every event the clients received: each
  upload's `file:indexed` follows its `file:uploaded` to the same sockets);
- what the machine limits: the clients' CPU per event received (the same way, their own
  processes), and the least time one event to N sockets needs when the server's and the
  clients' CPU share this machine's cores, beside the p99's target; and the server's own part
  (its metric bff_live_delivery_seconds, scraped from each instance): how long after its
  sending each event had been written to every socket, without the clients' reading;
- mass disconnect: every client leaves at once (a network blip, the proxy restarting); the
  time until the workers are quiet again (a second under the idle rate), their CPU per
  connection meanwhile;
- reconnect storm: the same clients back 30 s later; how much the workers' RSS grew per
  connection over the first storm's (what the closed connections left unfreed: anything in
  reference cycles waits for a full collection, every 5 minutes; `--no-reconnect` skips it);
- `GET /api/auth/me` (one at a time, every 20 ms): p99 during the storm, the fan-out and the
  mass disconnect (target: under 50 ms).

Usage:
    .venv/bin/python bench/live_bench.py [--clients 2000 5000] [--setups one two]
        [--processes 2] [--sessions 50] [--uploads 10] [--spacing 1.0] [--batch 16]
        [--no-reconnect] [--retry] [--database-delay MS] [--tuning on off:NAME ...]

`--tuning` serves each setup once per BFF_LIVE_TUNING value given, alternating (the live
layer's patches, bff/live/patches/: `on`, `off`, or `off:NAME,...`), so a patch's gain is
measured side by side with the stock library in one run.

`--database-delay` puts bench/delay_proxy.py between the server and its database, holding each
chunk MS ms each way (a database on another machine, or a busy one); with `--sessions` near
`--clients`, most of a storm's set-ups look their session up there.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import secrets
import shutil
import signal
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import aiohttp

sys.path.insert(0, str(Path(__file__).resolve().parent))  # its sibling live_support.py
from live_support import (
    ADMIN_PASSWORD,
    KB,
    NURSE,
    REPO,
    STAFF_PASSWORD,
    NodeClients,
    Probe,
    ProcfileServer,
    cpu_of,
    delivery_seconds,
    hypercorn_worker,
    loadavg,
    pct,
    rss,
    seed,
    sign_in,
    unconnected,
)
from live_trace import compare

from config.settings import SettingsError, load_settings
from tools.devcluster import Cluster
from tools.devserver import (
    RedisProcess,
    create_postgres_database,
    drop_postgres_database,
    free_port,
    wait_for_port,
)

STORM_LIMIT = 60.0  # seconds the connect storm may take before a client counts as failed
IDLE_SECONDS = 5.0  # the idle CPU window
QUIET_LIMIT = 180.0  # seconds a mass disconnect may take before the bench gives up waiting
RECONNECT_AFTER = 30.0  # the reconnect storm after the mass disconnect: past a ping interval
TARGET_KB = 50.0
TARGET_STORM = {2000: 15.0, 5000: 15.0}
TARGET_P99 = {2000: 100.0, 5000: 250.0}
TARGET_ME_P99 = 50.0


def mark(ok: bool) -> str:
    return "meets" if ok else "MISSES"


def say(label: str, text: str) -> None:
    print(f"{label}: {text}  [load {loadavg()}]", flush=True)


async def upload(
    http: aiohttp.ClientSession, base: str, folder: str, token: str
) -> tuple[str, float]:
    """One small upload, once its response has arrived: its name and when it was sent."""
    name = f"live-bench-{secrets.token_hex(4)}.txt"
    form = aiohttp.FormData()
    form.add_field("filename", name)
    form.add_field("file", b"live bench\n", filename=name)
    sent = time.time()
    async with http.post(
        f"{base}/api/blobs/{folder}", data=form, headers={"x-auth-token": token}
    ) as response:
        await response.read()
        if response.status != 201:
            raise SystemExit(f"upload: {response.status}")
    return name, sent


async def snapshot(pid: int, home: Path, n: int) -> None:
    """Ask the traced worker (bench/live_trace.py) for snapshot n and wait for it."""
    os.kill(pid, signal.SIGUSR1)
    for _ in range(600):
        if (home / f"snapshot-{n}.done").exists():
            return
        await asyncio.sleep(0.1)
    raise SystemExit("the traced worker wrote no snapshot")


async def run_one(
    setup: str, clients: int, repo: Path, args: argparse.Namespace, root: Path, tuning: str = "on"
) -> None:
    label = f"{setup} instance{'s' if setup == 'two' else ''}, {clients} clients"
    if len(args.repos) > 1:
        label = f"{repo.name}: {label}"
    if len(args.tuning) > 1:
        label = f"BFF_LIVE_TUNING={tuning}: {label}"
    db_name = "bff_live_bench_" + secrets.token_hex(4)
    database = await create_postgres_database(db_name)
    proxy = None
    if args.database_delay:  # the server's database on another machine, or a busy one
        proxy, database = await delayed(database, args.database_delay)
    home = root / f"{setup}-{clients}-{secrets.token_hex(3)}"
    home.mkdir()
    redis = RedisProcess() if setup == "two" else None
    settings = {
        "admin_password": ADMIN_PASSWORD,
        "secret_key": secrets.token_urlsafe(48),
        "live_tuning": tuning,
    }
    server: Any
    if redis is not None:
        redis.start()
        server = Cluster(
            root=home,
            database_url=database,
            redis_url=redis.url,
            storage_url=f"file://{home / 'storage'}",
            instances=2,
            settings=settings,
        )
    else:
        env = {
            **os.environ,
            "BFF_DATABASE_URL": database,
            "BFF_STORAGE_URL": f"file://{home / 'storage'}",
            "BFF_VAR_DIR": str(home / "var"),
            "BFF_REDIS_URL": "",
            **{f"BFF_{k.upper()}": v for k, v in settings.items()},
        }
        if args.trace:
            env["LIVE_TRACE_DIR"] = str(home)
        app = "bench.live_trace:app" if args.trace else ""
        server = ProcfileServer(env, home / "server.log", repo, app)
    nodes = [NodeClients() for _ in range(args.processes)]
    probe: Probe | None = None
    try:
        await asyncio.to_thread(server.start)
        seed_env = server.env() if isinstance(server, Cluster) else server.env
        await asyncio.to_thread(seed, seed_env)
        base = server.base
        (admin,) = await sign_in(base, "admin", ADMIN_PASSWORD, 1)
        tokens = await sign_in(base, NURSE, STAFF_PASSWORD, args.sessions)
        async with aiohttp.ClientSession() as http:
            async with http.get(
                f"{base}/api/assignments/my-assignments", headers={"x-auth-token": tokens[0]}
            ) as response:
                first = (await response.json())["assignments"][0]
            folder = f"{first['containerName']}/{first['folders'][0]['folderName']}"
            await upload(http, base, folder, admin)  # warm: the upload path's first use
        workers = [hypercorn_worker(pid) for pid in server.pids() if pid is not None]
        for node in nodes:
            await node.start()
        clients_pids = [node.pid for node in nodes]
        probe = Probe(base, tokens[-1])
        probe.start()
        await asyncio.sleep(3)  # the probe's first requests, the server idle again
        before = sum(rss(pid) for pid in workers)
        if args.trace:
            await snapshot(workers[0], home, 1)

        instances = (
            [server.instance_base(i) for i in range(server.instances)]
            if isinstance(server, Cluster)
            else [base]
        )
        storm_cpu = cpu_of(workers)
        go = time.time()
        connected, failed, last, errors, retried = await connect_all(
            nodes, base, tokens, clients, args
        )
        storm_cpu = cpu_of(workers) - storm_cpu
        storm = last - go
        me_storm = probe.window(go, max(last, go + 1))
        target = TARGET_STORM.get(clients, 15.0)
        # Every client is one address here, as a site behind one NAT: refused as "crowded"
        # (BFF_LIVE_UNCONNECTED_PER_ADDRESS) or closed "late" (BFF_LIVE_CONNECT_SECONDS).
        unsigned = await unconnected(instances)
        say(
            label,
            f"connect storm: {connected} connected in {storm:.1f} s, {failed} failed"
            f"{' ' + str(errors) if errors else ''} ({unsigned['crowded']:.0f} refused as"
            f" crowded, {unsigned['late']:.0f} closed late"
            f"{f'; {retried} clients tried again' if args.retry else ''}), worker CPU"
            f" {storm_cpu * 1e6 / max(1, connected):.0f} us per connection"
            f" (target {target:.0f} s, none failed)"
            f"  [{mark(storm <= target and not failed)}]",
        )
        say_me(label, "the storm", me_storm)
        await asyncio.sleep(5)  # the connections settle (first pings answered)
        after = sum(rss(pid) for pid in workers)
        if args.trace:
            await snapshot(workers[0], home, 2)
            compare(home / "snapshot-1.pickle", home / "snapshot-2.pickle", connected)
        per = (after - before) / max(1, connected) / KB
        say(
            label,
            f"worker RSS {before / KB / KB:.0f} MB before, {after / KB / KB:.0f} MB with"
            f" {connected} connections: {per:.1f} KB per connection"
            f" (target < {TARGET_KB:.0f} KB)  [{mark(per < TARGET_KB)}]",
        )

        cpu, at = cpu_of(workers), time.time()
        node_cpu = cpu_of(clients_pids)
        await asyncio.sleep(IDLE_SECONDS)
        idle = (cpu_of(workers) - cpu) / (time.time() - at)
        node_idle = (cpu_of(clients_pids) - node_cpu) / (time.time() - at)
        say(
            label,
            f"idle (pings and the probe): {idle * 100:.1f}% of a core,"
            f" {idle * 1e6 / max(1, connected):.1f} us per connection per second",
        )

        delivered_before = await delivery_seconds(instances)
        cpu, start = cpu_of(workers), time.time()
        node_cpu = cpu_of(clients_pids)
        answered: dict[str, float] = {}
        sent: dict[str, float] = {}
        async with aiohttp.ClientSession() as http:
            for _ in range(args.uploads):
                name, sent_at = await upload(http, base, folder, admin)
                answered[name], sent[name] = time.time(), sent_at
                await asyncio.sleep(args.spacing)
        await asyncio.sleep(2)  # late events count (and show in the p99)
        end = time.time()
        busy = cpu_of(workers) - cpu - idle * (end - start)
        node_busy = cpu_of(clients_pids) - node_cpu - node_idle * (end - start)
        reports = [await node.ask({"cmd": "report"}, 60) for node in nodes]
        received = sum(report["events"] for report in reports)  # file:indexed too
        delays: list[float] = []
        from_sent: list[float] = []
        reached = dict.fromkeys(answered, 0)
        for report in reports:
            for name, times in report["arrivals"].items():
                if name in answered:
                    reached[name] += len(times)
                    delays.extend(t - answered[name] * 1000 for t in times)
                    from_sent.extend(t - sent[name] * 1000 for t in times)
        still = sum(report["open"] for report in reports)
        delivered = sum(reached.values())
        if not delays:
            say(label, "fan-out: no event arrived")
            return
        p99 = pct(delays, 99)
        target = TARGET_P99.get(clients, 250.0)
        say(
            label,
            f"fan-out: {len(answered)} uploads x {min(reached.values())}-{max(reached.values())}"
            f" of {still} open sockets: median {statistics.median(delays):.0f} ms,"
            f" p99 {p99:.0f} ms, max {max(delays):.0f} ms (target p99 < {target:.0f} ms)"
            f"  [{mark(p99 < target and min(reached.values()) == connected)}]",
        )
        say(
            label,
            f"fan-out from the upload's request (events can beat its response, which"
            f" waits behind the fan-out): median {statistics.median(from_sent):.0f} ms,"
            f" p99 {pct(from_sent, 99):.0f} ms",
        )
        say(
            label,
            f"fan-out CPU: {busy * 1000:.0f} ms over the idle rate for {delivered} events:"
            f" {busy * 1e6 / max(1, delivered):.1f} us per delivered event; the clients"
            f" received {received} events in all (each upload's file:indexed too):"
            f" {busy * 1e6 / max(1, received):.1f} us of the worker's CPU per event",
        )
        say_floor(label, clients, busy / max(1, received), node_busy / max(1, received), target)
        say_worker_part(label, delivered_before, await delivery_seconds(instances), target)
        say_me(label, "the fan-out", probe.window(start, end))

        cpu, start = cpu_of(workers), time.time()
        for node in nodes:
            await node.close()
        quiet = await quiet_again(workers, idle, start + QUIET_LIMIT)
        busy = cpu_of(workers) - cpu
        say(
            label,
            f"mass disconnect: all {still} left; quiet again after {quiet - start:.1f} s,"
            f" worker CPU {busy * 1000:.0f} ms, {busy * 1e6 / max(1, still):.0f} us per connection",
        )
        say_me(label, "the mass disconnect", probe.window(start, quiet))

        if args.reconnect:
            # Engine.IO's sockets outlive their websockets by up to a ping interval
            await asyncio.sleep(RECONNECT_AFTER)
            for node in nodes:
                await node.start()
            go = time.time()
            again, failed, last, errors, _ = await connect_all(nodes, base, tokens, clients, args)
            await asyncio.sleep(5)  # as after the first storm
            grown = sum(rss(pid) for pid in workers) - after
            say(
                label,
                f"reconnect storm {RECONNECT_AFTER:.0f} s later (a proxy restarted): {again}"
                f" connected in {last - go:.1f} s, {failed} failed"
                f"{' ' + str(errors) if errors else ''}; worker RSS"
                f" {grown / max(1, again) / KB:+.1f} KB per connection over the first storm's"
                f" (what the closed connections left unfreed)",
            )
    finally:
        if probe is not None:
            await probe.stop()
        for node in nodes:
            await node.close()
        await asyncio.to_thread(server.stop)
        if redis is not None:
            redis.stop()
        if proxy is not None:
            proxy.kill()
            await proxy.wait()
        await drop_postgres_database(db_name)


def say_floor(label: str, clients: int, server: float, client: float, target: float) -> None:
    """What the machine limits: the clients' CPU per event received (the web app's library,
    on the same cores as the server), and the least time one event to every socket needs on
    this machine's cores with both sides' CPU (a floor for the fan-out's p99: every core busy,
    nothing else running, no wait between them)."""
    cores = os.cpu_count() or 1
    floor = clients * (server + client) / cores
    say(
        label,
        f"the clients' CPU: {client * 1e6:.1f} us per event received; one event to {clients}"
        f" sockets takes at least {clients} x ({server * 1e6:.0f} + {client * 1e6:.0f}) us"
        f" / {cores} cores = {floor * 1000:.0f} ms of this machine (the p99's target"
        f" {target:.0f} ms)",
    )


def say_worker_part(
    label: str,
    before: tuple[float, float, dict[float, float]],
    after: tuple[float, float, dict[float, float]],
    target: float,
) -> None:
    """The server's own part of the fan-out, from its metric bff_live_delivery_seconds: how
    long after its sending each event had been written to every socket of a worker (the
    clients' reading is not in it)."""
    count = after[0] - before[0]
    if not count:
        say(label, "the worker's part: no event observed (bff_live_delivery_seconds)")
        return
    mean = (after[1] - before[1]) / count * 1000
    le = min((edge for edge in after[2] if edge * 1000 >= target), default=float("inf"))
    within = after[2].get(le, 0.0) - before[2].get(le, 0.0)
    say(
        label,
        f"the worker's part (bff_live_delivery_seconds): {count:.0f} events, each written to"
        f" every socket {mean:.0f} ms after it was sent on average; {within:.0f} of them within"
        f" {le * 1000:.0f} ms",
    )


def say_me(label: str, during: str, window: list[tuple[float, float]]) -> None:
    """The probe's figures for one phase: (seconds into it, ms) per request; the slowest
    requests with when they were sent, to line them up with what the server did then."""
    samples = [ms for _, ms in window] or [0.0]
    slowest = sorted(window, key=lambda sample: -sample[1])[:3]
    say(
        label,
        f"GET /api/auth/me during {during}: {len(samples)} requests, median"
        f" {statistics.median(samples):.1f} ms, p99 {pct(samples, 99):.1f} ms"
        f" (target < {TARGET_ME_P99:.0f} ms)  [{mark(pct(samples, 99) < TARGET_ME_P99)}];"
        f" slowest {', '.join(f'{ms:.0f} ms at +{at:.1f} s' for at, ms in slowest)}",
    )


async def delayed(database: str, ms: float) -> tuple[asyncio.subprocess.Process, str]:
    """bench/delay_proxy.py in front of the database: the process, and the URL through it."""
    url = urlsplit(database)
    port = free_port()
    proxy = await asyncio.create_subprocess_exec(
        sys.executable,
        str(REPO / "bench" / "delay_proxy.py"),
        "--port",
        str(port),
        "--to",
        f"{url.hostname}:{url.port or 5432}",
        "--delay",
        str(ms),
    )
    await asyncio.to_thread(wait_for_port, port, None, 10)
    netloc = url.netloc.replace(f"{url.hostname}:{url.port}", f"127.0.0.1:{port}")
    return proxy, urlunsplit(url._replace(netloc=netloc))


async def connect_all(
    nodes: list[NodeClients], base: str, tokens: list[str], clients: int, args: Any
) -> tuple[int, int, float, dict[str, int], int]:
    """A connect storm of `clients`, shared among the node processes: connected, failed, when
    the last connected (epoch seconds), the failures by reason, and how many clients tried
    again (`--retry`)."""
    share = -(-clients // len(nodes))
    go = time.time()
    answers = await asyncio.gather(
        *(
            node.ask(
                {
                    "cmd": "connect",
                    "url": base,
                    "tokens": [
                        tokens[n % len(tokens)]
                        for n in range(i * share, min(clients, (i + 1) * share))
                    ],
                    "limit": STORM_LIMIT,
                    "batch": args.batch,
                    "retry": args.retry,
                },
                STORM_LIMIT + 30,
            )
            for i, node in enumerate(nodes)
        )
    )
    errors: dict[str, int] = {}
    for answer in answers:
        for reason, count in answer["errors"].items():
            errors[reason] = errors.get(reason, 0) + count
    last = max((a["lastMs"] / 1000 for a in answers if a["ok"]), default=go)
    retried = sum(a.get("retried", 0) for a in answers)
    return sum(a["ok"] for a in answers), sum(a["failed"] for a in answers), last, errors, retried


async def quiet_again(workers: list[int], idle: float, limit: float) -> float:
    """When the workers first spend a second at no more than their idle rate (with every
    connection open: pings) plus 5% of a core, or `limit`."""
    cpu, at = cpu_of(workers), time.time()
    while at < limit:
        await asyncio.sleep(1.0)
        now_cpu, now = cpu_of(workers), time.time()
        if (now_cpu - cpu) / (now - at) <= idle + 0.05:
            return at
        cpu, at = now_cpu, now
    return at


async def run(args: argparse.Namespace) -> None:
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))  # the children inherit it
    print("# clients and servers share this 2-core machine: figures are a floor", flush=True)
    root = Path(tempfile.mkdtemp(prefix="bff-live-bench-"))
    try:
        for setup in args.setups:
            for clients in args.clients:
                for repo in args.repos:  # side by side: checkouts alternating
                    for tuning in args.tuning:  # and BFF_LIVE_TUNING values alternating
                        await run_one(setup, clients, repo, args, root, tuning)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, nargs="+", default=[2000, 5000])
    parser.add_argument("--setups", nargs="+", choices=["one", "two"], default=["one"])
    parser.add_argument("--processes", type=int, default=2, help="node client processes")
    parser.add_argument("--sessions", type=int, default=50, help="the nurse's sessions")
    parser.add_argument("--uploads", type=int, default=10)
    parser.add_argument(
        "--repos",
        nargs="+",
        type=Path,
        default=[REPO],
        help="checkouts to serve from, alternating (one setup only); default this one",
    )
    parser.add_argument(
        "--tuning",
        nargs="+",
        default=["on"],
        help="BFF_LIVE_TUNING values to serve with, alternating (on, off, off:NAME,...)",
    )
    parser.add_argument(
        "--database-delay",
        type=float,
        default=0.0,
        help="ms each way between the server and its database (bench/delay_proxy.py)",
    )
    parser.add_argument("--trace", action="store_true", help="tracemalloc diff per connection")
    parser.add_argument(
        "--no-reconnect",
        dest="reconnect",
        action="store_false",
        help="skip the reconnect storm after the mass disconnect",
    )
    parser.add_argument(
        "--retry",
        action="store_true",
        help="clients that fail to connect try again as the web app's do (reconnection)",
    )
    parser.add_argument("--spacing", type=float, default=1.0, help="seconds between uploads")
    parser.add_argument(
        "--batch",
        type=int,
        default=16,
        help="connections a client process creates before its event loop runs (0: all at once)",
    )
    args = parser.parse_args()
    if not (
        all(1 <= n <= 20_000 for n in args.clients)
        and 1 <= args.processes <= 16
        and 1 <= args.sessions <= 1_000
        and 1 <= args.uploads <= 200
        and 0.1 <= args.spacing <= 10
        and 0 <= args.batch <= 20_000
    ):
        raise SystemExit(
            "--clients 1..20000, --processes 1..16, --sessions 1..1000, --uploads 1..200,"
            " --spacing 0.1..10, --batch 0..20000"
        )
    try:
        args.tuning = [load_settings(live_tuning=value).live_tuning for value in args.tuning]
    except SettingsError as exc:
        raise SystemExit(str(exc)) from None
    asyncio.run(run(args))


if __name__ == "__main__":
    main()
