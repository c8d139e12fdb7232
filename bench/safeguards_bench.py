"""Conversion safeguards benchmark: main's code beside this checkout's, on real servers.

Starts `python -m bff serve` twice on the embedded defaults (SQLite, local disk) on 127.0.0.1:
once on the code of a git revision (default `main`, exported with `git archive` into a
temporary directory, put first on PYTHONPATH) and once on this checkout, and prints for each:

- a profile-image PNG bomb (6320x6320, one colour, about 120 KB) and a 16-bit greyscale PNG of
  the same size: the answer's status and the server process's peak memory growth (VmHWM over
  the resident size before; target under 150 MB), and the peak of any worker process;
- `GET /api/auth/me` latency (median, p95, max; sequential requests) while a 20 MB RTF is
  uploaded and converted (for at most `--window` seconds of it; the conversion takes about
  0.5-1 s of CPU per MB), beside the same figures with nothing else running.

Each server runs with BFF_CONVERSION_SECONDS=300, so that the time limit does not end the
conversion measured; the whole run takes about three minutes.

Usage: .venv/bin/python bench/safeguards_bench.py [--before main] [--rtf-mb 20] [--window 30]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path

import aiohttp

# Run as a script (bench/x.py), the repo root is not on the path: the tooling lives there.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tools.devserver import ServerProcess, free_port, local_env, wait_for_port

REPO = Path(__file__).resolve().parents[1]
MB = 1024 * 1024
BOUNDARY = "bench-boundary-91ac"
ADMIN_PASSWORD = "bench-admin-password"
CONTAINER = "bench-ward"
FOLDER = "patient-0"
SIDE = 6320


class ServerAt(ServerProcess):
    """`python -m bff serve` run from a directory of (possibly older) code."""

    def __init__(self, env: dict[str, str], code: Path) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.env = {**env, "BFF_PORT": str(self.port), "PYTHONPATH": str(code)}
        self.log = None
        self.process = subprocess.Popen(
            [sys.executable, "-m", "bff", "serve"],
            env=self.env,
            cwd=code,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            wait_for_port(self.port, self.process)
        except RuntimeError:
            self.stop()
            raise

    def reset_peaks(self) -> None:
        """Make VmHWM restart from the resident size, in the server and in its workers."""
        self.reset_peak()
        for child in self.children():
            Path(f"/proc/{child}/clear_refs").write_text("5")

    def children(self) -> list[int]:
        """The server's child processes (conversion workers)."""
        found: list[int] = []
        for task in Path(f"/proc/{self.pid}/task").iterdir():
            with contextlib.suppress(FileNotFoundError):  # a thread that ended meanwhile
                found += [int(pid) for pid in (task / "children").read_text().split()]
        return found


def peak_of(pid: int) -> int:
    """VmHWM of a process in bytes (0 when it is gone)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    except FileNotFoundError:
        pass
    return 0


def png(side: int, depth: int, colour_type: int, sample: bytes) -> bytes:
    """A side x side PNG of one colour."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = struct.pack(">I", zlib.crc32(kind + data))
        return struct.pack(">I", len(data)) + kind + data + crc

    pixels = zlib.compress((b"\x00" + sample * side) * side, 9)
    header = struct.pack(">IIBBBBB", side, side, depth, colour_type, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")
    )


def rtf(size: int) -> bytes:
    """A plain RTF document of about size bytes (mostly text, a paragraph every 2 KB)."""
    line = b"Patient seen in clinic today, stable, plan unchanged. " * 37 + b"\\par\n"
    return b"{\\rtf1\\ansi\\deff0 " + line * (size // len(line)) + b"}"


def form(name: str, data: bytes, profile: bool) -> bytes:
    """A multipart upload body."""
    fields = b""
    if profile:
        fields = (
            f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="isProfileImage"\r\n\r\ntrue\r\n'
        ).encode()
    head = (
        f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="{name}"\r\n'
        "Content-Type: application/octet-stream\r\n\r\n"
    ).encode()
    return fields + head + data + f"\r\n--{BOUNDARY}--\r\n".encode()


async def upload(
    session: aiohttp.ClientSession, base: str, token: str, name: str, data: bytes, profile: bool
) -> int:
    """POST an upload; its status."""
    async with session.post(
        f"{base}/api/blobs/{CONTAINER}/{FOLDER}",
        data=form(name, data, profile),
        headers={
            "x-auth-token": token,
            "Content-Type": f"multipart/form-data; boundary={BOUNDARY}",
        },
    ) as response:
        await response.read()
        return response.status


async def me_latencies(
    session: aiohttp.ClientSession,
    base: str,
    token: str,
    until: asyncio.Future[int] | None,
    seconds: float = 0,
) -> list[float]:
    """Sequential GET /api/auth/me latencies (ms): 200 of them, or until `until` is done (at
    most `seconds`)."""
    found: list[float] = []
    deadline = time.perf_counter() + seconds
    while (until is None and len(found) < 200) or (
        until is not None and not until.done() and time.perf_counter() < deadline
    ):
        start = time.perf_counter()
        async with session.get(f"{base}/api/auth/me", headers={"x-auth-token": token}) as resp:
            await resp.read()
            assert resp.status == 200, resp.status
        found.append((time.perf_counter() - start) * 1000)
        await asyncio.sleep(0.02)
    return found


def figures(values: list[float]) -> str:
    """median / p95 / max of latencies in ms."""
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]
    return f"{statistics.median(ordered):.0f}/{p95:.0f}/{ordered[-1]:.0f} ms (n={len(ordered)})"


async def measure(code: Path, args: argparse.Namespace, images: dict[str, bytes]) -> dict[str, str]:
    """Every figure of one server run, by label."""
    root = Path(tempfile.mkdtemp(prefix="bff-safeguards-"))
    env = local_env(root, admin_password=ADMIN_PASSWORD, conversion_seconds="300")
    server = ServerAt(env, code)
    results: dict[str, str] = {}
    try:
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=900)) as session:
            base = server.base
            async with session.post(
                f"{base}/api/auth/login", json={"username": "admin", "password": ADMIN_PASSWORD}
            ) as response:
                token = (await response.json())["token"]
            headers = {"x-auth-token": token}
            await session.post(
                f"{base}/api/admin/containers", json={"name": CONTAINER}, headers=headers
            )
            await session.post(
                f"{base}/api/admin/containers/{CONTAINER}/folders",
                json={"name": FOLDER},
                headers=headers,
            )
            # Warm up: one small conversion of each kind (the workers start on first use).
            await upload(session, base, token, "warm.rtf", rtf(10_000), False)
            await upload(session, base, token, "warm.png", images["warm"], True)
            for label in ("PNG bomb", "16-bit PNG"):
                server.wait_until_idle()
                server.reset_peaks()
                before = server.memory("VmRSS")
                status = await upload(session, base, token, "p.png", images[label], True)
                growth = (server.memory("VmHWM") - before) / MB
                workers = max((peak_of(pid) for pid in server.children()), default=0) / MB
                worker = f", worker peak {workers:.0f} MB" if workers else ""
                results[label] = f"{status} / server +{growth:.0f} MB{worker}"
            server.wait_until_idle()
            results["/me idle"] = figures(await me_latencies(session, base, token, None))
            document = rtf(args.rtf_mb * 1000 * 1000)
            started = time.perf_counter()
            converting = asyncio.ensure_future(
                upload(session, base, token, "long.rtf", document, False)
            )
            during = await me_latencies(session, base, token, converting, args.window)
            seconds = time.perf_counter() - started
            results[f"/me during {args.rtf_mb}MB RTF"] = figures(during)
            if converting.done():
                outcome = f"{converting.result()} in {seconds:.1f} s"
            else:
                outcome = f"still converting after {seconds:.0f} s (stopped)"
                converting.cancel()
            results[f"{args.rtf_mb}MB RTF upload"] = outcome
    finally:
        server.stop()
        shutil.rmtree(root, ignore_errors=True)
    return results


def export(revision: str, into: Path) -> None:
    """The Python code of a git revision, in a directory."""
    archive = subprocess.run(  # noqa: S603 - fixed command
        ["git", "archive", revision, "bff", "config", "storage"],  # noqa: S607
        cwd=REPO,
        check=True,
        capture_output=True,
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)  # noqa: S603, S607


async def run(args: argparse.Namespace) -> None:
    images = {
        "PNG bomb": png(SIDE, 8, 2, b"\x20\x40\x60"),
        "16-bit PNG": png(SIDE, 16, 0, b"\x12\x34"),
        "warm": png(300, 8, 2, b"\x20\x40\x60"),
    }
    print(
        f"# PNG bomb {len(images['PNG bomb']) // 1024} KB, "
        f"16-bit PNG {len(images['16-bit PNG']) // 1024} KB, both {SIDE}x{SIDE}",
        flush=True,
    )
    with tempfile.TemporaryDirectory(prefix="bff-before-") as before_code:
        export(args.before, Path(before_code))
        before = await measure(Path(before_code), args, images)
    after = await measure(REPO, args, images)
    width = max(len(label) for label in before)
    print(f"{'':<{width}}  {'before (' + args.before + ')':<44}  after (this checkout)")
    for label, value in before.items():
        print(f"{label:<{width}}  {value:<44}  {after.get(label, '-')}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default="main", help="git revision measured as 'before'")
    parser.add_argument("--rtf-mb", type=int, default=20, help="size of the RTF converted")
    parser.add_argument(
        "--window", type=float, default=30, help="seconds of /me latencies during the conversion"
    )
    args = parser.parse_args()
    os.chdir(REPO)
    asyncio.run(run(args))


if __name__ == "__main__":
    main()
