"""Instance restart benchmark: how long `make cluster` (python -m tools.devcluster: two
instances behind nginx, PostgreSQL, Redis, moto) takes to bring back an instance killed with
SIGKILL, and what clients of the proxy see meanwhile.

Starts the cluster with its own PostgreSQL database and a throwaway redis-server, then --kills
times (default 3): kills instance 0 with its worker (SIGKILL to its process group), measures
the time until its own address answers /api/health again, and while it is down sends GET
/api/health through nginx every 50 ms, counting failures. Prints one figure a line.

Usage: .venv/bin/python bench/restart_bench.py [--kills 3]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import secrets
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path
from queue import Empty, Queue

# Run as a script (bench/x.py), the repo root is not on the path: the tooling lives there.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tools.devserver import REPO, RedisProcess, free_port

GIVE_UP = 90.0  # seconds an instance may take to come back before the bench gives up


def healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/api/health", timeout=2) as response:  # noqa: S310
            return bool(response.status == 200)
    except OSError:
        return False


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=3)
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
        found = wait_for_line(lines, r"instance 0: (\S+) \(pid (\d+)\)", 10)
        base, pid = found.group(1), int(found.group(2))
        proxy = f"http://127.0.0.1:{port}"
        for kill in range(1, args.kills + 1):
            proxied = failed = 0
            os.killpg(pid, signal.SIGKILL)
            killed = time.monotonic()
            while not healthy(base):
                if time.monotonic() - killed > GIVE_UP:
                    raise SystemExit(f"instance 0 did not come back within {GIVE_UP} s")
                proxied += 1
                failed += not healthy(proxy)
                time.sleep(0.05)
            back = time.monotonic() - killed
            pid = int(wait_for_line(lines, r"instance 0 died: restarted \(pid (\d+)\)", 10)[1])
            print(
                f"kill {kill}: instance serving again after {back:.2f} s; "
                f"{failed} of {proxied} requests through nginx failed meanwhile"
            )
            time.sleep(6)  # past nginx's fail_timeout (5 s): each kill starts afresh


if __name__ == "__main__":
    main()
