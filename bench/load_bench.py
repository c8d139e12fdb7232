"""Load benchmark: simulated staff against one BFF process, beside a bare Quart ceiling.

Starts `python -m bff serve` on 127.0.0.1 (SQLite and local disk; with --postgres a throwaway
PostgreSQL database) in a temporary directory, seeds a small realistic data set with
`python -m tools.scale_demo` (50 staff, 5 containers, 200 folders, 2,000 files, each folder
assigned to 3 of the staff as in the scale volume), signs the simulated users in, holds 200
live Socket.IO connections (websocket transport) open, and runs simulated staff at 100 and
then 500 concurrent users, each at two paces: a member of staff's (5 s between steps on
average, the p99 target's run) and a stress pace (0.5 s). Each user does
a fixed number of iterations of: dashboard (me + my-assignments), statistics, open a folder,
view a file (link, then the bytes), upload a small file (doctors and nurses); a time limit
bounds each run. Prints requests per second, median and p99 per request type, errors (and
their causes), and the server's peak memory.

Then it saturates authenticated JSON endpoints (no think time) and, with the same load tool,
a bare Quart JSON endpoint on the same Hypercorn settings (bench/bare_app.py) serving the same
JSON document, in alternating rounds side by side, and prints our median throughput as a ratio
of the bare one (target at least 0.5); the ratio to a bare endpoint serving a small object is
printed beside it. `--users` with no number runs only these.

The load generator runs in its own process on the same 2-core machine as the server, so the
two share the CPU: the figures are a floor, not the server's capacity on its own cores.

Usage: .venv/bin/python bench/load_bench.py [--postgres] [--users 100 500] [--think 5 0.5]
       [--iterations 3] [--limit 100] [--rounds 3]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import multiprocessing
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import socketio

from bff.users.models import Role

# Run as a script (bench/x.py), the repo root is not on the path: the tooling lives there.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tools.devserver import ServerProcess, free_port, local_env, start_server, wait_for_port
from tools.scale_layout import ScaleSizes, scale_staff

REPO = Path(__file__).resolve().parents[1]
ADMIN_PASSWORD = "load-bench-admin-password"
STAFF_PASSWORD = "load-bench-staff-password"
TARGET_P99_MS = 50.0
TARGET_USERS = 100
TARGET_RATIO = 0.5
MB = 2**20


@dataclass
class Results:
    """Latencies (ms) and errors per request type, and the run's wall time."""

    latencies: dict[str, list[float]] = field(default_factory=dict)
    errors: dict[str, int] = field(default_factory=dict)
    reasons: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0
    users_done: int = 0

    def add(self, kind: str, started: float, ok: bool, why: str = "") -> None:
        """Record one request that started at `started` (perf_counter); `why` it failed."""
        if ok:
            self.latencies.setdefault(kind, []).append((time.perf_counter() - started) * 1000)
        else:
            self.errors[kind] = self.errors.get(kind, 0) + 1
            reason = f"{kind}: {why or 'failed'}"
            self.reasons[reason] = self.reasons.get(reason, 0) + 1

    @property
    def requests(self) -> int:
        """Requests answered with success, of every type."""
        return sum(len(v) for v in self.latencies.values())


def p99(samples: list[float]) -> float:
    """The 99th percentile of samples."""
    ordered = sorted(samples)
    return ordered[max(0, int(len(ordered) * 0.99) - 1)]


# --- the load generator (runs in a child process) ------------------------------------------


@dataclass
class User:
    """A signed-in simulated member of staff."""

    username: str
    token: str
    can_upload: bool


class Journey:
    """One simulated user's iterations through the portal."""

    def __init__(
        self, http: aiohttp.ClientSession, base: str, user: User, think: float, deadline: float
    ) -> None:
        self.http, self.base, self.user = http, base, user
        self.headers = {"x-auth-token": user.token}
        self.think, self.deadline = think, deadline
        self.random = random.Random(user.token)

    async def request(
        self, results: Results, kind: str, method: str, url: str, **kwargs: Any
    ) -> Any:
        """One timed request; its JSON body (or None on error or for non-JSON)."""
        started = time.perf_counter()
        try:
            async with self.http.request(
                method, self.base + url, headers=self.headers, **kwargs
            ) as response:
                body = await response.read()
                ok = response.status < 400
                results.add(kind, started, ok, f"HTTP {response.status}")
                is_json = response.content_type == "application/json"
                return await response.json() if ok and is_json and body else None
        except (aiohttp.ClientError, TimeoutError) as exc:
            results.add(kind, started, False, type(exc).__name__)
            return None

    async def pause(self) -> bool:
        """Think for a while; False once the time is up."""
        if self.think:
            await asyncio.sleep(self.random.uniform(0.5, 1.5) * self.think)
        return time.perf_counter() < self.deadline

    async def run(self, results: Results, iterations: int, number: int) -> None:
        """Dashboard, statistics, a folder, a file, an upload; `iterations` times."""
        await asyncio.sleep(self.random.uniform(0, self.think or 0.01))  # stagger the start
        for iteration in range(iterations):
            if time.perf_counter() >= self.deadline:
                return
            await self.request(results, "dashboard: me", "GET", "/api/auth/me")
            mine = await self.request(
                results, "dashboard: my-assignments", "GET", "/api/assignments/my-assignments"
            )
            if not await self.pause():
                return
            await self.request(
                results, "my-assignments/stats", "GET", "/api/assignments/my-assignments/stats"
            )
            folders = [
                f"{a['containerName']}/{f['folderName']}"
                for a in (mine or {}).get("assignments", [])
                for f in a["folders"]
            ]
            if not folders or not await self.pause():
                return
            folder = self.random.choice(folders)
            listing = await self.request(results, "folder listing", "GET", f"/api/blobs/{folder}")
            blobs = [b["name"] for b in (listing or {}).get("blobs", [])]
            if blobs and await self.pause():
                blob = self.random.choice(blobs)
                link = await self.request(
                    results, "view: link", "GET", f"/api/blobs/{folder}/{blob}/url"
                )
                if link:
                    await self.request(results, "view: file", "GET", link["url"])
            if self.user.can_upload and await self.pause():
                name = f"load-{number}-{iteration}-{time.time_ns()}.txt"  # new every run
                form = aiohttp.FormData()
                form.add_field("filename", name)
                form.add_field("file", b"synthetic load-test note\n" * 8, filename=name)
                await self.request(results, "upload", "POST", f"/api/blobs/{folder}", data=form)
            if not await self.pause():
                return
        results.users_done += 1


async def journeys(
    base: str, users: list[User], iterations: int, think: float, limit: float
) -> Results:
    """Run every user's journey concurrently, stopping new steps after `limit` seconds."""
    results = Results()
    connector = aiohttp.TCPConnector(limit=0)
    timeout = aiohttp.ClientTimeout(total=60)
    async with aiohttp.ClientSession(connector=connector, timeout=timeout) as http:
        start = time.perf_counter()
        deadline = start + limit
        await asyncio.gather(
            *(
                Journey(http, base, user, think, deadline).run(results, iterations, n)
                for n, user in enumerate(users)
            )
        )
        results.seconds = time.perf_counter() - start
    return results


async def hammer(
    base: str, paths: list[str], token: str, workers: int, count: int, limit: float
) -> Results:
    """`workers` connections each sending GETs back to back, `count` in all or `limit` seconds."""
    results = Results()
    connector = aiohttp.TCPConnector(limit=0)
    headers = {"x-auth-token": token} if token else {}
    remaining = count
    async with aiohttp.ClientSession(
        connector=connector, timeout=aiohttp.ClientTimeout(total=60)
    ) as http:
        start = time.perf_counter()
        deadline = start + limit

        async def worker(n: int) -> None:
            nonlocal remaining
            turn = n
            while remaining > 0 and time.perf_counter() < deadline:
                remaining -= 1
                path = paths[turn % len(paths)]
                turn += 1
                started = time.perf_counter()
                try:
                    async with http.get(base + path, headers=headers) as response:
                        await response.read()
                        ok = response.status == 200
                        results.add("json", started, ok, f"HTTP {response.status}")
                except (aiohttp.ClientError, TimeoutError) as exc:
                    results.add("json", started, False, type(exc).__name__)

        await asyncio.gather(*(worker(n) for n in range(workers)))
        results.seconds = time.perf_counter() - start
    return results


def run_journeys(*args: Any) -> Results:
    """Child-process entry point of `journeys`."""
    return asyncio.run(journeys(*args))


def run_hammer(*args: Any) -> Results:
    """Child-process entry point of `hammer`."""
    return asyncio.run(hammer(*args))


def in_child(func: Any, *args: Any) -> Results:
    """Run func(*args) in a fresh process, so the load tool has its own interpreter and GIL."""
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        result: Results = pool.apply(func, args)
        return result


# --- the orchestration (main process) -------------------------------------------------------


def seed(env: dict[str, str]) -> None:
    """A small realistic data set through the scale demo (same settings as the server)."""
    subprocess.run(  # noqa: S603 - a fixed command
        [
            sys.executable,
            "-m",
            "tools.scale_demo",
            "--staff=50",
            "--containers=5",
            "--folders=200",
            "--files=2000",
            # Each folder assigned to 3 members of staff (a care team), as in the scale volume
            # (5,000 folders, 300 each of 50 staff): so is the fan-out of each file event.
            "--folders-per-staff=12",
            f"--staff-password={STAFF_PASSWORD}",
        ],
        env=env,
        cwd=REPO,
        check=True,
        stdout=subprocess.DEVNULL,
    )


SIGN_IN_ATTEMPTS = 20  # per session: refusals for being busy are retried, this many times at most


async def sign_in_all(base: str, count: int) -> tuple[list[User], Results]:
    """Sign `count` simulated users in (sessions spread over the 50 staff accounts), as many at
    once as the server checks for one address (MAX_CHECKING_PER_ADDRESS: it answers 429
    beyond). A refusal for being busy (429, or 503) is retried after its Retry-After, bounded;
    every session asked for is signed in or the bench stops. Latencies are of the attempt that
    succeeded; `Results.reasons` counts the retries."""
    from bff.auth.throttle import MAX_CHECKING_PER_ADDRESS

    results = Results()
    users: list[User] = []
    gate = asyncio.Semaphore(MAX_CHECKING_PER_ADDRESS)
    staff = [(username, role) for username, _, role in scale_staff(ScaleSizes())]
    credentials = [{"username": username, "password": STAFF_PASSWORD} for username, _ in staff]

    async def one(http: aiohttp.ClientSession, n: int) -> None:
        username, role = staff[n % len(staff)]
        for _ in range(SIGN_IN_ATTEMPTS):
            async with gate:
                started = time.perf_counter()
                async with http.post(
                    f"{base}/api/auth/login", json=credentials[n % len(staff)]
                ) as response:
                    if response.status == 200:
                        results.add("sign-in", started, True)
                        token = (await response.json())["token"]
                        users.append(User(username, token, role in (Role.DOCTOR, Role.NURSE)))
                        return
                    if response.status not in (429, 503):
                        raise SystemExit(f"sign-in: {response.status} {await response.text()}")
                    wait = float(response.headers.get("Retry-After", "1"))
            key = f"sign-in retried after {response.status}"
            results.reasons[key] = results.reasons.get(key, 0) + 1
            await asyncio.sleep(min(wait, 5.0))  # outside the gate: others go meanwhile
        raise SystemExit(f"sign-in: still refused after {SIGN_IN_ATTEMPTS} attempts")

    start = time.perf_counter()
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as http:
        await asyncio.gather(*(one(http, n) for n in range(count)))
    results.seconds = time.perf_counter() - start
    return users, results


class LiveClients:
    """Socket.IO clients held open during the runs, counting the events they receive."""

    def __init__(self) -> None:
        self.clients: list[socketio.AsyncClient] = []
        self.events = 0
        self.failed = 0

    async def connect(self, base: str, users: list[User], count: int) -> None:
        """Connect `count` clients (websocket transport), each with a user's session."""

        async def on_event(*_: Any) -> None:
            self.events += 1

        for n in range(count):
            client = socketio.AsyncClient(reconnection=False)
            client.on("*", on_event)
            try:
                await client.connect(
                    base, auth={"token": users[n % len(users)].token}, transports=["websocket"]
                )
            except socketio.exceptions.ConnectionError:
                self.failed += 1
                continue
            self.clients.append(client)

    @property
    def connected(self) -> int:
        """Clients still connected."""
        return sum(1 for c in self.clients if c.connected)

    async def close(self) -> None:
        """Disconnect every client."""
        for client in self.clients:
            await client.disconnect()


def report_run(label: str, results: Results, peak: int, targeted: bool) -> None:
    """Print one run's figures, one per line."""
    errors = sum(results.errors.values())
    print(
        f"{label}: {results.requests / results.seconds:.0f} requests/s over "
        f"{results.seconds:.1f} s, {results.requests} requests, {errors} errors, "
        f"{results.users_done} users finished all iterations",
        flush=True,
    )
    for kind, samples in results.latencies.items():
        mark = ""
        if targeted:
            ok = p99(samples) < TARGET_P99_MS
            mark = (
                f"  (target p99 < {TARGET_P99_MS:.0f} ms)  [{'meets' if ok else 'MISSES'} target]"
            )
        print(
            f"{label}, {kind}: median {statistics.median(samples):.1f} ms, "
            f"p99 {p99(samples):.1f} ms, {len(samples)} ok, "
            f"{results.errors.get(kind, 0)} errors{mark}",
            flush=True,
        )
    for kind, count in results.errors.items():
        if kind not in results.latencies:
            print(f"{label}, {kind}: {count} errors, none succeeded", flush=True)
    for reason, count in sorted(results.reasons.items()):
        print(f"{label}, errors by cause: {reason} x{count}", flush=True)
    print(f"{label}: server peak memory (VmHWM) {peak / MB:.0f} MB", flush=True)


def report_rate(label: str, results: Results) -> float:
    """Print a saturation run's rate and latencies; return the rate."""
    samples = results.latencies.get("json", [0.0])
    rate = results.requests / results.seconds
    print(
        f"{label}: {rate:.0f} requests/s, median {statistics.median(samples):.1f} ms, "
        f"p99 {p99(samples):.1f} ms, {sum(results.errors.values())} errors",
        flush=True,
    )
    return rate


async def run(args: argparse.Namespace) -> None:
    print(
        "# The load generator runs in its own process on the same 2-core machine as the "
        "server: they share the CPU, so these figures are a floor.",
        flush=True,
    )
    root = Path(tempfile.mkdtemp(prefix="bff-load-bench-"))
    try:
        async with contextlib.AsyncExitStack() as stack:
            env = local_env(root, admin_password=ADMIN_PASSWORD)
            postgres = "bff_load_bench" if args.postgres else ""
            server = await start_server(stack, env, postgres)
            kind = "PostgreSQL" if args.postgres else "SQLite"
            print(f"# one server process (pid {server.pid}) on {kind} + local disk", flush=True)
            await bench_bff(server, args, root)
    finally:
        shutil.rmtree(root, ignore_errors=True)


async def bench_bff(server: ServerProcess, args: argparse.Namespace, root: Path) -> None:
    """The journeys, then the saturated JSON endpoints beside the bare ceiling."""
    base = server.base
    start = time.perf_counter()
    await asyncio.to_thread(seed, server.env)
    seconds = time.perf_counter() - start
    print(
        f"# seeded 50 staff, 5 containers, 200 folders, 2000 files in {seconds:.1f} s", flush=True
    )
    server.reset_peak()
    users, signed = await sign_in_all(base, max(args.users, default=1))
    samples = signed.latencies.get("sign-in", [0.0])
    print(
        f"sign-in of {len(users)} sessions (4 at a time): {len(users) / signed.seconds:.1f}/s, "
        f"median {statistics.median(samples):.0f} ms, p99 {p99(samples):.0f} ms, "
        f"{sum(signed.reasons.values())} retried; "
        f"server peak memory (VmHWM) {server.memory('VmHWM') / MB:.0f} MB",
        flush=True,
    )
    live = LiveClients()
    await live.connect(base, users, args.sockets if args.users else 0)
    print(f"# {live.connected} Socket.IO clients connected ({live.failed} refused)", flush=True)
    try:
        for count in args.users:
            for think in args.think:
                await asyncio.to_thread(server.wait_until_idle)
                server.reset_peak()
                results = await asyncio.to_thread(
                    in_child, run_journeys, base, users[:count], args.iterations, think, args.limit
                )
                label = f"{count} users ({think:g} s think time) + {live.connected} sockets"
                targeted = count == TARGET_USERS and think == args.think[0]
                report_run(label, results, server.memory("VmHWM"), targeted)
        print(
            f"# live clients received {live.events} events; {live.connected} still connected",
            flush=True,
        )
    finally:
        await live.close()
    await asyncio.to_thread(server.wait_until_idle)
    token = users[0].token
    async with contextlib.AsyncExitStack() as stack:
        small = BareApp(None)
        stack.callback(small.stop)
        for label, path in (
            ("GET /api/auth/me", "/api/auth/me"),
            ("GET /api/assignments/my-assignments", "/api/assignments/my-assignments"),
        ):
            body = await fetch_body(base + path, token)
            document = root / f"body-{len(body)}.json"
            await asyncio.to_thread(document.write_bytes, body)
            same = BareApp(document)
            stack.callback(same.stop)
            ours: list[float] = []
            bare_same: list[float] = []
            bare_small: list[float] = []
            for turn in range(1, args.rounds + 1):  # side by side, alternating
                for rates, target, name, headers_token in (
                    (ours, base + path, f"{label} ({len(body):,} bytes)", token),
                    (bare_same, same.base, f"bare Quart, the same {len(body):,} bytes", ""),
                    (bare_small, small.base, "bare Quart, a 4-field object", ""),
                ):
                    await asyncio.to_thread(server.wait_until_idle)
                    results = await asyncio.to_thread(
                        in_child,
                        run_hammer,
                        target,
                        [""],
                        headers_token,
                        args.workers,
                        args.count,
                        args.seconds,
                    )
                    rates.append(
                        report_rate(f"round {turn}: {name}, {args.workers} connections", results)
                    )
            ratio = statistics.median(ours) / statistics.median(bare_same)
            ok = ratio >= TARGET_RATIO
            print(
                f"{label} / bare Quart serving the same document (medians of {args.rounds} "
                f"rounds): {ratio:.2f}  (target >= {TARGET_RATIO})  "
                f"[{'meets' if ok else 'MISSES'} target];  / bare Quart serving a 4-field "
                f"object: {statistics.median(ours) / statistics.median(bare_small):.2f}",
                flush=True,
            )
            same.stop()


async def fetch_body(url: str, token: str) -> bytes:
    """One authenticated GET's body."""
    async with (
        aiohttp.ClientSession() as http,
        http.get(url, headers={"x-auth-token": token}) as response,
    ):
        return await response.read()


class BareApp:
    """bench/bare_app.py on a free port, serving body (or a small object) at /json."""

    def __init__(self, body: Path | None) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}/json"
        command = [sys.executable, str(REPO / "bench" / "bare_app.py"), "--port", str(self.port)]
        if body is not None:
            command += ["--body", str(body)]
        self.process: subprocess.Popen[bytes] | None = subprocess.Popen(  # noqa: S603
            command, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        wait_for_port(self.port, self.process)

    def stop(self) -> None:
        """Stop it (again: nothing)."""
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=20)
            self.process = None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--postgres", action="store_true", help="a throwaway PostgreSQL database")
    parser.add_argument(
        "--users", type=int, nargs="*", default=[100, 500], help="none: only the saturation runs"
    )
    parser.add_argument("--iterations", type=int, default=3, help="per simulated user")
    parser.add_argument(
        "--think",
        type=float,
        nargs="+",
        default=[5.0, 0.5],
        help="mean seconds between steps, one journey run each (the first: the p99 target's)",
    )
    parser.add_argument("--limit", type=float, default=100, help="seconds per journey run")
    parser.add_argument("--sockets", type=int, default=200)
    parser.add_argument("--workers", type=int, default=100, help="connections when saturating")
    parser.add_argument("--count", type=int, default=20_000, help="requests when saturating")
    parser.add_argument("--seconds", type=float, default=10, help="time limit when saturating")
    parser.add_argument("--rounds", type=int, default=3, help="saturation rounds, alternating")
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
