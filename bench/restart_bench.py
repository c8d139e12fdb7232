"""Instance restart benchmark: how long `make cluster` (python -m tools.devcluster: two
instances behind nginx, PostgreSQL, Redis, moto) takes to bring back an instance killed with
SIGKILL under load, and what clients of the proxy see meanwhile.

Starts the cluster with its own PostgreSQL database and a throwaway redis-server, creates a
folder, and puts it under load through nginx: --uploaders clients each uploading 256 KB files
one after the other, --readers clients each reading the admin dashboard the same way.
Then --kills times (default 3): kills instance 0 with its worker (SIGKILL to its process group)
and prints, per kill, the time from the kill to:
  - listening: its port accepts connections again (Hypercorn's master only binds it; its
    worker listens once the app has started: imports, create_app, before_serving),
  - serving: its own address first answers GET /api/health with 200 (database and storage
    answer),
and how many requests through nginx failed meanwhile (uploads in flight to the killed instance
fail by design: nginx never sends a POST twice; they are counted apart). Ends with the load's
totals. Where the time goes inside the start: docs/operations.md, "Restarting after a crash".

Usage: .venv/bin/python bench/restart_bench.py [--kills 3] [--uploaders 4] [--readers 4]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import re
import secrets
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections import Counter
from pathlib import Path
from queue import Empty, Queue

import aiohttp

# Run as a script (bench/x.py), the repo root is not on the path: the tooling lives there.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tools.devserver import REPO, RedisProcess, free_port

GIVE_UP = 90.0  # seconds an instance may take to come back before the bench gives up
WARD, FOLDER = "restart-bench", "patient-1"
BOUNDARY = "restart-bench-boundary"
UPLOAD_BYTES = 256 * 1024


def wait_for_line(lines: Queue[str], pattern: str, seconds: float) -> re.Match[str]:
    deadline = time.monotonic() + seconds
    while (left := deadline - time.monotonic()) > 0:
        try:
            line = lines.get(timeout=left)
        except Empty:
            break
        if found := re.search(pattern, line):
            return found
    raise SystemExit(f"no line matching {pattern!r} within {seconds} s")


def listening(port: int) -> bool:
    with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.5):
        return True
    return False


class Load:
    """Uploaders and readers through nginx, in a thread of their own, counting answers."""

    def __init__(self, base: str, password: str, uploaders: int, readers: int) -> None:
        self.base = base
        self.password = password
        self.uploaders = uploaders
        self.readers = readers
        self.answers: Counter[str] = Counter()  # "upload 201", "read 200", "read error"...
        self.stopping = threading.Event()
        self.ready = threading.Event()
        self._thread = threading.Thread(target=lambda: asyncio.run(self._run()), daemon=True)

    def start(self) -> None:
        self._thread.start()
        if not self.ready.wait(60):
            raise SystemExit("the load did not start")

    def stop(self) -> None:
        self.stopping.set()
        self._thread.join(60)

    def failed(self) -> int:
        """Failed requests so far (any answer but 200/201, or no answer)."""
        return sum(n for key, n in self.answers.items() if not key.endswith(("200", "201")))

    def cut_off(self) -> int:
        """Uploads that got no answer of the instance (nginx's 502, or the connection cut):
        those in flight to a killed instance (nginx never sends a POST twice)."""
        return self.answers["upload 502"] + self.answers["upload error"]

    def total(self) -> int:
        return sum(self.answers.values())

    async def _run(self) -> None:
        timeout = aiohttp.ClientTimeout(total=60)
        async with aiohttp.ClientSession(timeout=timeout) as http:
            login = {"username": "admin", "password": self.password}
            async with http.post(f"{self.base}/api/auth/login", json=login) as response:
                headers = {"x-auth-token": (await response.json())["token"]}
            for url, payload in (
                ("/api/admin/containers", {"name": WARD}),
                (f"/api/admin/containers/{WARD}/folders", {"name": FOLDER}),
            ):
                async with http.post(self.base + url, json=payload, headers=headers) as response:
                    assert response.status in (200, 201), await response.text()
            self.ready.set()
            await asyncio.gather(
                *(self._upload(http, headers, n) for n in range(self.uploaders)),
                *(self._read(http, headers) for _ in range(self.readers)),
            )

    async def _upload(self, http: aiohttp.ClientSession, headers: dict[str, str], who: int) -> None:
        content = os.urandom(UPLOAD_BYTES)
        count = 0
        while not self.stopping.is_set():
            count += 1
            name = f"u{who}-{count}.bin"
            body = (
                (
                    f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="filename"\r\n\r\n'
                    f"{name}\r\n--{BOUNDARY}\r\nContent-Disposition: form-data; "
                    f'name="file"; filename="{name}"\r\n'
                    "Content-Type: application/octet-stream\r\n\r\n"
                ).encode()
                + content
                + f"\r\n--{BOUNDARY}--\r\n".encode()
            )
            kind = f"multipart/form-data; boundary={BOUNDARY}"
            await self._ask(
                "upload",
                http.post(
                    f"{self.base}/api/blobs/{WARD}/{FOLDER}",
                    data=body,
                    headers={**headers, "Content-Type": kind},
                ),
            )

    async def _read(self, http: aiohttp.ClientSession, headers: dict[str, str]) -> None:
        while not self.stopping.is_set():
            await self._ask(
                "read", http.get(f"{self.base}/api/blobs/{WARD}/{FOLDER}", headers=headers)
            )

    async def _ask(self, what: str, request: aiohttp.client._RequestContextManager) -> None:
        try:
            async with request as response:
                await response.read()
                self.answers[f"{what} {response.status}"] += 1
        except (aiohttp.ClientError, TimeoutError):
            self.answers[f"{what} error"] += 1
            await asyncio.sleep(0.05)


def serving_after(port: int, killed: float) -> tuple[float, float]:
    """(the port listening again, /api/health first 200), in seconds since killed."""
    while listening(port) and time.monotonic() - killed < 5:
        time.sleep(0.01)  # the killed processes' socket going away
    while not listening(port):
        if time.monotonic() - killed > GIVE_UP:
            raise SystemExit(f"instance 0 did not come back within {GIVE_UP} s")
        time.sleep(0.02)
    bound = time.monotonic() - killed
    url = f"http://127.0.0.1:{port}/api/health"
    while health_status(url) != 200:
        if time.monotonic() - killed > GIVE_UP:
            raise SystemExit(f"instance 0 did not serve within {GIVE_UP} s")
        time.sleep(0.02)
    return bound, time.monotonic() - killed


def start_cpu(master: int) -> float:
    """CPU seconds (user and system) a restarted instance has used so far: its Hypercorn master
    and the master's children (its worker). Read right after its first 200, this is what its
    start cost, which a loaded machine stretches into more seconds of waiting."""
    ticks = os.sysconf("SC_CLK_TCK")

    def used(pid: int) -> float:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / ticks  # utime, stime

    children = Path(f"/proc/{master}/task/{master}/children").read_text().split()
    return used(master) + sum(used(int(child)) for child in children)


def health_status(url: str) -> int:
    """The status of one GET (0: no answer): it waits in the instance's backlog until a
    worker serves."""
    try:
        with urllib.request.urlopen(url, timeout=GIVE_UP) as response:  # noqa: S310 - loopback
            return int(response.status)
    except urllib.error.HTTPError as exc:
        return int(exc.code)
    except OSError:
        return 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=3)
    parser.add_argument("--uploaders", type=int, default=4)
    parser.add_argument("--readers", type=int, default=4)
    args = parser.parse_args()
    redis = RedisProcess()
    redis.start()
    port = free_port()
    database = "bff_restart_bench_" + secrets.token_hex(4)
    with contextlib.ExitStack() as stack:
        stack.callback(redis.stop)
        command = [sys.executable, "-m", "tools.devcluster", "--port", str(port)]
        command += ["--database", database, "--redis", redis.url]
        cluster = subprocess.Popen(  # noqa: S603 - our own command
            command, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
        )
        stack.callback(cluster.wait, 60)
        stack.callback(cluster.send_signal, signal.SIGTERM)
        lines: Queue[str] = Queue()
        assert cluster.stdout is not None
        stream = cluster.stdout
        threading.Thread(target=lambda: list(map(lines.put, stream)), daemon=True).start()
        wait_for_line(lines, r"^Cluster: ", 180)
        found = wait_for_line(lines, r"instance 0: http://127\.0\.0\.1:(\d+) \(pid (\d+)\)", 10)
        instance_port, pid = int(found.group(1)), int(found.group(2))
        password = wait_for_line(lines, r"Sign in as admin with password (\S+)", 10).group(1)
        load = Load(f"http://127.0.0.1:{port}", password, args.uploaders, args.readers)
        load.start()
        stack.callback(load.stop)
        time.sleep(3)  # the load running before the first kill
        for kill in range(1, args.kills + 1):
            total, failed, cut_before = load.total(), load.failed(), load.cut_off()
            os.killpg(pid, signal.SIGKILL)
            killed = time.monotonic()
            bound, serving = serving_after(instance_port, killed)
            found = wait_for_line(lines, r"instance 0 died: restarted \(pid (\d+)\)", 10)
            pid = int(found[1])
            cpu = start_cpu(pid)
            cut = load.cut_off() - cut_before
            print(
                f"kill {kill}: serving again after {serving:.2f} s "
                f"(listening after {bound:.2f} s; the start's CPU {cpu:.2f} s: Hypercorn's "
                f"master and worker, whatever the load); through nginx meanwhile "
                f"{load.total() - total} requests, {load.failed() - failed - cut} failed "
                f"and {cut} upload(s) in flight to the killed instance cut off; "
                f"load average {os.getloadavg()[0]:.1f}",
                flush=True,
            )
            time.sleep(6)  # past nginx's fail_timeout (5 s): each kill starts afresh
        load.stop()
        print("load through nginx:", ", ".join(f"{k} {v}" for k, v in sorted(load.answers.items())))


if __name__ == "__main__":
    main()
