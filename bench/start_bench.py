"""How long `make run` takes to its sign-in line ("Patient records portal: ..."), as a newcomer
meets it: on a fresh clone (the first start installs into .venv, runs `npm ci` and builds the
web app), then again with nothing changed (the second start should only serve). Targets
(issue 52): under 2 minutes for the first on a quiet machine, under 10 s for the second.

Clones this checkout's HEAD (or --source) into a throwaway folder, runs `make run` there on a
free port, notes when the sign-in line appears and when the server first answers /login, stops
it (SIGTERM to its process group, as Ctrl-C would), and does it all again. Prints both times,
which steps each start ran, and any npm warning (an engine warning names a package that does
not support this Node). pip's and npm's caches are used as they are on this machine unless
--cold (then both start empty, in the throwaway folder, and everything is downloaded).

    python3 bench/start_bench.py [--source PATH_OR_URL] [--cold] [--keep]

A bench, not a test: the first start is mostly downloads and the build's CPU time, so it
depends on the network, the caches and the machine's load (printed with the figures).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SIGN_IN_LINE = "Patient records portal: "
# What each start ran, from the recipe lines make echoes.
STEPS = {
    "venv": re.compile(r" -m venv "),
    "pip install": re.compile(r"pip install"),
    "npm ci": re.compile(r"npm ci\b"),
    "web app build": re.compile(r"npm run build"),
}
WARNING = re.compile(r"EBADENGINE|npm warn|npm WARN", re.IGNORECASE)


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def answers(url: str) -> bool:
    """Whether url answers 200 now."""
    try:
        with urllib.request.urlopen(url, timeout=2) as response:  # noqa: S310 - our own server
            return bool(response.status == 200)
    except OSError:
        return False


class Start:
    """One `make run` in checkout, timed from its start to the sign-in line and to /login."""

    def __init__(self, checkout: Path, env: dict[str, str], port: int, limit: float) -> None:
        self.lines: list[str] = []
        self.sign_in: float | None = None
        self.serving: float | None = None
        began = time.monotonic()
        process = subprocess.Popen(
            ["make", "run"],  # noqa: S607 - the README's command, make from PATH
            cwd=checkout,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,  # its own process group: make, npm, the server
        )
        seen = threading.Event()

        def read() -> None:
            assert process.stdout is not None
            for line in process.stdout:
                self.lines.append(line.rstrip("\n"))
                if self.sign_in is None and SIGN_IN_LINE in line:
                    self.sign_in = time.monotonic() - began
                    seen.set()
            seen.set()

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        try:
            if not seen.wait(limit) or self.sign_in is None:
                tail = "\n".join(self.lines[-30:])
                raise SystemExit(f"make run printed no sign-in line within {limit:.0f} s:\n{tail}")
            login = f"http://127.0.0.1:{port}/login"
            while time.monotonic() - began < limit and process.poll() is None:
                if answers(login):
                    self.serving = time.monotonic() - began
                    break
                time.sleep(0.05)
        finally:
            with_group(process, signal.SIGTERM)
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                with_group(process, signal.SIGKILL)
                process.wait()
            reader.join(timeout=5)

    def steps(self) -> str:
        """The steps make ran, in words."""
        ran = [name for name, pattern in STEPS.items() if any(map(pattern.search, self.lines))]
        return ", ".join(ran) or "none (only served)"

    def warnings(self) -> list[str]:
        """npm's warnings, one line each."""
        return [line for line in self.lines if WARNING.search(line)]


def with_group(process: subprocess.Popen[str], sig: int) -> None:
    """Send sig to process's group (make and everything it started)."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, sig)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", default=str(REPO), help="what to clone (default: this one)")
    parser.add_argument("--cold", action="store_true", help="empty pip and npm caches")
    parser.add_argument("--keep", action="store_true", help="keep the clone (printed)")
    parser.add_argument("--limit", type=float, default=900, help="seconds a start may take")
    args = parser.parse_args()

    root = Path(tempfile.mkdtemp(prefix="start-bench-"))
    checkout = root / "clone"
    port = free_port()
    # The clone runs on its defaults (var/ in it), but on a free port: this shell's own BFF_*
    # settings stay out.
    env = {key: value for key, value in os.environ.items() if not key.startswith("BFF_")}
    env.update(BFF_PORT=str(port), BFF_HOST="127.0.0.1")
    if args.cold:
        env["PIP_NO_CACHE_DIR"] = "1"
        env["npm_config_cache"] = str(root / "npm-cache")
    try:
        cloned = time.monotonic()
        subprocess.run(  # noqa: S603 - git with a path or URL the caller gave
            ["git", "clone", "--quiet", args.source, str(checkout)],  # noqa: S607
            check=True,
        )
        clone_seconds = time.monotonic() - cloned
        load = os.getloadavg()[0]
        first = Start(checkout, env, port, args.limit)
        second = Start(checkout, env, port, args.limit)
        load_after = os.getloadavg()[0]
        head = subprocess.run(  # noqa: S603 - git on the clone
            ["git", "-C", str(checkout), "log", "-1", "--format=%h %cs"],  # noqa: S607
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        caches = "empty pip and npm caches" if args.cold else "this machine's pip and npm caches"
        print(f"make run on a fresh clone of {head} ({caches}; clone {clone_seconds:.1f} s)")
        print(f"load average {load:.1f} before, {load_after:.1f} after, {os.cpu_count()} cores")
        for name, start in (("first start ", first), ("second start", second)):
            serving = f"{start.serving:.1f} s" if start.serving is not None else "not seen"
            assert start.sign_in is not None
            print(
                f"{name}  sign-in line {start.sign_in:6.1f} s   /login answers {serving:>8}"
                f"   ran: {start.steps()}"
            )
        warnings = first.warnings() + second.warnings()
        print(f"npm warnings: {len(warnings)}")
        for line in warnings:
            print(f"  {line}")
    finally:
        if args.keep:
            print(f"clone kept in {checkout}")
        else:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
