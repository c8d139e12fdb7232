"""`make cluster` (python -m tools.devcluster) as a person runs it: an instance that dies is
started again by itself, and SIGTERM stops everything it started (nginx, moto, the instances),
as Ctrl-C does. The cluster's behaviour under load is tested in tests/cluster/."""

from __future__ import annotations

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

import pytest

from tools.devserver import REPO, RedisProcess, free_port


class Output:
    """The command's output lines, read as they come."""

    def __init__(self, process: subprocess.Popen[str]) -> None:
        self.lines: Queue[str] = Queue()
        assert process.stdout is not None
        stream = process.stdout
        threading.Thread(
            target=lambda: [self.lines.put(line) for line in stream], daemon=True
        ).start()

    def wait_for(self, pattern: str, seconds: float) -> re.Match[str]:
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            try:
                line = self.lines.get(timeout=left)
            except Empty:
                break
            if found := re.search(pattern, line):
                return found
        raise AssertionError(f"no line matching {pattern!r} within {seconds} s")


def healthy(base: str) -> bool:
    try:
        with urllib.request.urlopen(f"{base}/api/health", timeout=5) as response:  # noqa: S310
            return bool(response.status == 200)
    except OSError:
        return False


def descendants(pid: int) -> list[int]:
    """Every process below pid (from /proc)."""
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        for child in map(int, (task / "children").read_text().split()):
            found += [child, *descendants(child)]
    return found


def alive(pid: int) -> bool:
    """Running (a zombie waiting for its parent does not count)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


def test_a_dead_instance_comes_back_and_sigterm_stops_everything(
    tmp_path: Path, redis: RedisProcess
) -> None:
    port = free_port()
    database = "bff_devcluster_test_" + secrets.token_hex(4)
    command = [sys.executable, "-m", "tools.devcluster", "--port", str(port)]
    command += ["--database", database, "--redis", redis.url, "--root", str(tmp_path)]
    cluster = subprocess.Popen(  # noqa: S603 - our own command
        command,
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        start_new_session=True,
    )
    output = Output(cluster)
    started: list[int] = [cluster.pid]
    try:
        output.wait_for(r"^Cluster: ", 180)
        instances = [output.wait_for(rf"instance {i}: (\S+) \(pid (\d+)\)", 10) for i in (0, 1)]
        moto = output.wait_for(r"S3 \(moto\) http://127.0.0.1:(\d+)", 10)
        started += [int(found.group(2)) for found in instances]
        base, pid = instances[0].group(1), int(instances[0].group(2))
        assert healthy(base) and healthy(f"http://127.0.0.1:{port}")

        os.killpg(pid, signal.SIGKILL)  # a crash of instance 0, with its worker
        restarted = output.wait_for(r"instance 0 died: restarted \(pid (\d+)\)", 90)
        started.append(int(restarted.group(1)))
        assert healthy(base)  # the same address serves again

        started += descendants(cluster.pid)  # nginx and its workers, moto, Hypercorn's
        cluster.send_signal(signal.SIGTERM)
        assert cluster.wait(timeout=60) == 0
        deadline = time.monotonic() + 10
        while any(alive(p) for p in started) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not [p for p in started if alive(p)]
        assert not healthy(f"http://127.0.0.1:{port}")  # nginx is gone
        with pytest.raises(OSError):  # and moto
            urllib.request.urlopen(f"http://127.0.0.1:{moto.group(1)}/", timeout=5)
    finally:
        if cluster.poll() is None:
            started += descendants(cluster.pid)
        for pid in started:  # when it failed, leave nothing of it running
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        cluster.wait()
        drop = ["dropdb", "-h", "127.0.0.1", "-U", "postgres", "--if-exists", "--force", database]
        subprocess.run(drop, check=False)  # noqa: S603 - PostgreSQL's own tool
