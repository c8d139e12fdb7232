"""The pieces of bench/live_bench.py: the server as the operator starts it, its worker process
as /proc shows it, the Node clients (bench/live_clients.mjs) and the `/api/auth/me` probe."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
from prometheus_client.parser import text_string_to_metric_families

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # run as a script, the repo root is not on the path

from tools.devserver import free_port, kill_group, wait_for_port  # noqa: E402

KB = 1024
ADMIN_PASSWORD = "live-bench-admin-password"
STAFF_PASSWORD = "live-bench-staff-password"
NURSE = "nurse.002"  # the scale demo's first nurse (tools/scale_demo.py's scale_staff)


# --- processes as /proc shows them ----------------------------------------------------------


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def _children(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(child) for child in text.split()]


def hypercorn_worker(pid: int, seconds: float = 30) -> int:
    """The Hypercorn worker under the process `pid` (Hypercorn's parent, or a shell above it):
    the child Hypercorn spawned (`spawn_main` in its command line), which holds the sockets."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        todo = [pid]
        while todo:
            current = todo.pop()
            if "hypercorn" in _cmdline(current) and "spawn_main" not in _cmdline(current):
                for child in _children(current):
                    if "spawn_main" in _cmdline(child):
                        return child
            todo.extend(_children(current))
        time.sleep(0.2)
    raise SystemExit(f"no Hypercorn worker under process {pid}")


def rss(pid: int) -> int:
    """Resident bytes of one process (VmRSS), as an operator's dashboard reads it."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * KB
    raise SystemExit(f"no VmRSS for process {pid}")


def cpu_seconds(pid: int) -> float:
    """CPU time (user + system) one process has used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def cpu_of(pids: list[int]) -> float:
    """CPU time (user + system) the processes `pids` have used so far, together."""
    return sum(cpu_seconds(pid) for pid in pids)


def loadavg() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


# --- the server as the operator starts it -----------------------------------------------------


def procfile(repo: Path) -> dict[str, str]:
    """The Procfile's process types -> commands."""
    lines = (repo / "Procfile").read_text().splitlines()
    return dict(
        (kind.strip(), command.strip())
        for kind, _, command in (line.partition(":") for line in lines if ":" in line)
    )


class ProcfileServer:
    """One instance started from the Procfile: `release` once, then `web` (Hypercorn with
    config/hypercorn.toml, one worker process), bound to 127.0.0.1 instead of 0.0.0.0."""

    def __init__(
        self,
        env: dict[str, str],
        log: Path,
        repo: Path = REPO,
        app: str = "",
        prefix: str = "",
        wait_seconds: float = 60,
    ) -> None:
        self.repo, self.app = repo, app
        self.prefix, self.wait_seconds = prefix, wait_seconds  # a command the web one runs under
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        venv_bin = str(Path(sys.executable).parent)
        self.env = {
            **env,
            "PORT": str(self.port),
            "BFF_PUBLIC_URL": self.base,
            "PATH": f"{venv_bin}:{os.environ.get('PATH', '')}",
        }
        self.log = log
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        commands = procfile(self.repo)
        subprocess.run(  # noqa: S603 - the Procfile's own command
            ["/bin/sh", "-c", commands["release"]],
            check=True,
            stdout=subprocess.DEVNULL,
            env=self.env,
            cwd=self.repo,
        )
        web = commands["web"].replace("0.0.0.0:", "127.0.0.1:")
        if self.app:  # another module serving the same app (bench/live_trace.py)
            web = web.replace("bff.asgi:app", self.app)
        if self.prefix:  # e.g. valgrind (bench/request_cost_bench.py)
            web = f"{self.prefix} {web}"
        with self.log.open("wb") as output:
            self.process = subprocess.Popen(  # noqa: S603 - the Procfile's own command
                ["/bin/sh", "-c", f"exec {web}"],
                stdout=output,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                env=self.env,
                cwd=self.repo,
            )
        wait_for_port(self.port, self.process, self.wait_seconds)

    def pids(self) -> list[int | None]:
        return [self.process.pid if self.process else None]

    def stop(self) -> None:
        if self.process is None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=25)
        except subprocess.TimeoutExpired:
            kill_group(self.process)
        self.process = None


# --- seeding and signing in -------------------------------------------------------------------


def seed(env: dict[str, str]) -> None:
    """A small data set through the scale demo (the nurse's folders are all we need)."""
    subprocess.run(  # noqa: S603 - a fixed command
        [
            sys.executable,
            "-m",
            "tools.scale_demo",
            "--staff=8",
            "--containers=2",
            "--folders=40",
            "--files=40",
            "--folders-per-staff=5",
            f"--staff-password={STAFF_PASSWORD}",
        ],
        env=env,
        cwd=REPO,
        check=True,
        stdout=subprocess.DEVNULL,
    )


async def sign_in(base: str, username: str, password: str, count: int) -> list[str]:
    """`count` sessions of one account, two sign-ins at once (the server checks at most two
    passwords of one username at a time: 429 beyond, retried after its Retry-After)."""
    gate = asyncio.Semaphore(2)
    tokens: list[str] = []

    async def one(http: aiohttp.ClientSession) -> None:
        for _ in range(30):
            async with (
                gate,
                http.post(
                    f"{base}/api/auth/login", json={"username": username, "password": password}
                ) as response,
            ):
                if response.status == 200:
                    tokens.append((await response.json())["token"])
                    return
                if response.status not in (429, 503):
                    raise SystemExit(f"sign-in: {response.status} {await response.text()}")
                wait = float(response.headers.get("Retry-After", "1"))
            await asyncio.sleep(min(wait, 5.0))
        raise SystemExit("sign-in: still refused after 30 attempts")

    async with aiohttp.ClientSession() as http:
        await asyncio.gather(*(one(http) for _ in range(count)))
    return tokens


# --- the Node clients -------------------------------------------------------------------------


class NodeClients:
    """One `node bench/live_clients.mjs` process holding a share of the connections."""

    def __init__(self) -> None:
        self.process: asyncio.subprocess.Process | None = None

    async def start(self) -> None:
        self.process = await asyncio.create_subprocess_exec(
            "node",
            str(REPO / "bench" / "live_clients.mjs"),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            limit=256 * 1024 * 1024,  # a report line holds every arrival
        )

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    async def ask(self, command: dict[str, Any], seconds: float) -> dict[str, Any]:
        assert self.process is not None and self.process.stdin and self.process.stdout
        self.process.stdin.write((json.dumps(command) + "\n").encode())
        await self.process.stdin.drain()
        line = await asyncio.wait_for(self.process.stdout.readline(), seconds)
        if not line:
            raise SystemExit("the Node clients exited (is frontend/node_modules installed?)")
        answer: dict[str, Any] = json.loads(line)
        return answer

    async def close(self) -> None:
        if self.process is None:
            return
        with contextlib.suppress(Exception):
            await self.ask({"cmd": "close"}, 30)
        try:
            await asyncio.wait_for(self.process.wait(), 10)
        except TimeoutError:
            self.process.kill()
            await self.process.wait()


# --- the server's own figures -----------------------------------------------------------------


async def delivery_seconds(bases: list[str]) -> tuple[float, float, dict[float, float]]:
    """bff_live_delivery_seconds summed over instances (each scraped on its own address, as
    /metrics allows from this machine): events observed, their seconds, count by bucket."""
    count = total = 0.0
    buckets: dict[float, float] = {}
    async with aiohttp.ClientSession() as http:
        for base in bases:
            async with http.get(f"{base}/metrics") as response:
                text = await response.text()
            for family in text_string_to_metric_families(text):
                if family.name != "bff_live_delivery_seconds":
                    continue
                for sample in family.samples:
                    if sample.name.endswith("_count"):
                        count += sample.value
                    elif sample.name.endswith("_sum"):
                        total += sample.value
                    elif sample.name.endswith("_bucket"):
                        le = float(sample.labels["le"])
                        buckets[le] = buckets.get(le, 0.0) + sample.value
    return count, total, buckets


async def unconnected(bases: list[str]) -> dict[str, float]:
    """bff_live_unconnected_total by reason (crowded: refused, late: closed), summed over
    instances: live connections that did not sign in, e.g. a storm's refused for their address."""
    counts: dict[str, float] = {"crowded": 0.0, "late": 0.0}
    async with aiohttp.ClientSession() as http:
        for base in bases:
            async with http.get(f"{base}/metrics") as response:
                text = await response.text()
            for family in text_string_to_metric_families(text):
                if family.name == "bff_live_unconnected":
                    for sample in family.samples:
                        if sample.name.endswith("_total"):
                            reason = sample.labels["reason"]
                            counts[reason] = counts.get(reason, 0.0) + sample.value
    return counts


# --- the /api/auth/me probe -------------------------------------------------------------------


@dataclass
class Probe:
    """`GET /api/auth/me` one at a time, every `period` seconds, each (start, ms) kept; a
    request that fails or takes over 10 s counts as 10 s."""

    base: str
    token: str
    # 20 ms: a 2,000 storm lasts 1.5-2 s, and at 50 ms its p99 was its slowest of 25-40
    period: float = 0.02
    samples: list[tuple[float, float]] = field(default_factory=list)
    _task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run())

    async def _run(self) -> None:
        timeout = aiohttp.ClientTimeout(total=10)
        async with aiohttp.ClientSession(timeout=timeout) as http:
            while True:
                started = time.time()
                try:
                    async with http.get(
                        f"{self.base}/api/auth/me", headers={"x-auth-token": self.token}
                    ) as response:
                        await response.read()
                        ok = response.status == 200
                except (aiohttp.ClientError, TimeoutError):
                    ok = False
                ms = (time.time() - started) * 1000 if ok else 10_000.0
                self.samples.append((started, ms))
                await asyncio.sleep(max(0.0, self.period - ms / 1000))

    def window(self, start: float, end: float) -> list[tuple[float, float]]:
        """(seconds after `start` it was sent, ms) of each request sent from `start` to `end`."""
        return [(at - start, ms) for at, ms in self.samples if start <= at <= end]

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(len(ordered) * p / 100) - 1))]
