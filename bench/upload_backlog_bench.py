"""Uploads while the text-reading backlog drains: does background extraction slow them down?

Starts `python -m bff serve` on the embedded defaults (SQLite, local disk) with the background
job runner (BFF_JOB_WORKERS, 1 by default as in production), then alternates, in one run:

- idle: uploads of files that are never read (`.bin`, 256 KB) one after another, with no job
  pending;
- draining: a burst of files to read is uploaded first (text documents of 1-20 KB, 2-page text
  PDFs, scanned pages for OCR: the backlog), then the same uploads as above while the runner
  reads the backlog (the bench checks it is still draining at the end of the phase).

Prints each phase's upload p50/p95/p99 and max, the ratios draining / idle, the backlog before
and after the phase and how long what was left took to drain once the uploads stopped, and the
load average. Target (issue 32): uploads' p99 unchanged while the backlog drains. On SQLite the
jobs give requests the database first (bff/turns.py): under this bench's steady stream of
uploads they advance about one a second, and at full speed once it stops.

    .venv/bin/python bench/upload_backlog_bench.py [--rounds 2] [--uploads 150] [--workers 1]
"""

from __future__ import annotations

import argparse
import asyncio
import io
import os
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

import aiohttp

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from text_jobs_bench import prose, scan, text_pdf

from tools.devserver import ServerProcess, local_env, query_database

ADMIN_PASSWORD = "bench-admin-password"
CONTAINER = "bench-ward"
FOLDER = "patient-1"
UPLOAD_BYTES = 256 * 1024
BACKLOG = "SELECT COUNT(*) FROM file_jobs WHERE state IN ('pending', 'running')"


async def sign_in(session: aiohttp.ClientSession, base: str) -> str:
    body = {"username": "admin", "password": ADMIN_PASSWORD}
    async with session.post(f"{base}/api/auth/login", json=body) as response:
        response.raise_for_status()
        token: str = (await response.json())["token"]
        return token


async def upload(
    session: aiohttp.ClientSession, base: str, token: str, name: str, data: bytes, kind: str
) -> float:
    """Upload one file; its response time in ms."""
    form = aiohttp.FormData()
    form.add_field("file", io.BytesIO(data), filename=name, content_type=kind)
    started = time.perf_counter()
    async with session.post(
        f"{base}/api/blobs/{CONTAINER}/{FOLDER}", data=form, headers={"x-auth-token": token}
    ) as response:
        await response.read()
        if response.status != 201:
            raise SystemExit(f"upload {name} -> {response.status}")
    return (time.perf_counter() - started) * 1000


def percentile(samples: list[float], p: float) -> float:
    ordered = sorted(samples)
    return ordered[max(0, min(len(ordered) - 1, round(len(ordered) * p) - 1))]


async def backlog(database_url: str) -> int:
    return int((await query_database(database_url, BACKLOG))[0][0])


async def uploads(
    session: aiohttp.ClientSession, base: str, token: str, label: str, count: int
) -> list[float]:
    """count uploads of unread files, one after another: their times in ms."""
    data = os.urandom(UPLOAD_BYTES)
    return [
        await upload(session, base, token, f"{label}-{n}.bin", data, "application/octet-stream")
        for n in range(count)
    ]


async def fill_backlog(
    session: aiohttp.ClientSession, base: str, token: str, label: str, args: argparse.Namespace
) -> None:
    """Upload the files to read (four at a time): the runner starts on them at once."""
    rng = random.Random(label)
    files: list[tuple[str, bytes, str]] = []
    for n in range(args.texts):
        text = prose(rng, rng.randint(1024, 20 * 1024)).encode()
        files.append((f"{label}-note-{n}.txt", text, "text/plain"))
    for n in range(args.pdfs):
        files.append((f"{label}-letter-{n}.pdf", text_pdf(rng, 2), "application/pdf"))
    for n in range(args.scans):
        files.append((f"{label}-scan-{n}.pdf", scan(rng), "application/pdf"))
    rng.shuffle(files)
    gate = asyncio.Semaphore(4)

    async def one(name: str, data: bytes, kind: str) -> None:
        async with gate:
            await upload(session, base, token, name, data, kind)

    await asyncio.gather(*(one(*f) for f in files))


async def wait_drained(database_url: str, seconds: float) -> int:
    """Poll the server's database (another process) until its backlog is empty."""
    deadline = time.monotonic() + seconds
    left = await backlog(database_url)
    while left and time.monotonic() < deadline:
        await asyncio.sleep(0.5)  # the state is in another process
        left = await backlog(database_url)
    return left


def load() -> str:
    """The 1-minute load average."""
    return Path("/proc/loadavg").read_text().split()[0]


def line(label: str, samples: list[float]) -> str:
    return (
        f"{label:9} {len(samples):4} uploads  p50 {percentile(samples, 0.5):6.1f} ms  "
        f"p95 {percentile(samples, 0.95):6.1f} ms  p99 {percentile(samples, 0.99):6.1f} ms  "
        f"max {max(samples):6.1f} ms"
    )


async def bench(args: argparse.Namespace, root: Path) -> None:
    env = local_env(root, admin_password=ADMIN_PASSWORD, job_workers=str(args.workers))
    server = ServerProcess(env, log=root / "server.log")
    database_url = env["BFF_DATABASE_URL"]
    idle: list[float] = []
    draining: list[float] = []
    try:
        timeout = aiohttp.ClientTimeout(total=600)
        async with aiohttp.ClientSession(timeout=timeout) as session:
            base = server.base
            token = await sign_in(session, base)
            headers = {"x-auth-token": token}
            async with session.post(
                f"{base}/api/admin/containers", json={"name": CONTAINER}, headers=headers
            ) as response:
                response.raise_for_status()
            async with session.post(
                f"{base}/api/admin/containers/{CONTAINER}/folders",
                json={"name": FOLDER},
                headers=headers,
            ) as response:
                response.raise_for_status()
            await uploads(session, base, token, "warm", 10)
            for round_ in range(args.rounds):
                left = await wait_drained(database_url, 600)
                loaded = load()
                idle_now = await uploads(session, base, token, f"idle{round_}", args.uploads)
                idle += idle_now
                print(
                    f"round {round_ + 1}: {line('idle', idle_now)} (backlog {left}, load {loaded})"
                )
                await fill_backlog(session, base, token, f"b{round_}", args)
                before = await backlog(database_url)
                loaded = load()
                busy = await uploads(session, base, token, f"busy{round_}", args.uploads)
                after = await backlog(database_url)
                draining += busy
                print(
                    f"round {round_ + 1}: {line('draining', busy)} "
                    f"(backlog {before} -> {after}, load {loaded})",
                    flush=True,
                )
                if after == 0:
                    print("  the backlog ran out during the phase: raise --texts or --scans")
                started = time.monotonic()
                left = await wait_drained(database_url, 600)
                print(
                    f"  then the {after} jobs left drained in {time.monotonic() - started:.1f} s "
                    f"with no upload (left: {left})",
                    flush=True,
                )
    finally:
        server.stop()
    print(line("idle", idle))
    print(line("draining", draining))
    for name, p in (("p50", 0.5), ("p95", 0.95), ("p99", 0.99)):
        ratio = percentile(draining, p) / percentile(idle, p)
        print(f"draining / idle {name}: {ratio:.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2, help="idle + draining phases")
    parser.add_argument("--uploads", type=int, default=150, help="timed uploads per phase")
    parser.add_argument("--workers", type=int, default=1, help="BFF_JOB_WORKERS")
    parser.add_argument("--texts", type=int, default=150, help="text documents per backlog")
    parser.add_argument("--pdfs", type=int, default=20, help="2-page text PDFs per backlog")
    parser.add_argument("--scans", type=int, default=6, help="scanned pages per backlog")
    args = parser.parse_args()
    print(f"load average at start: {Path('/proc/loadavg').read_text().strip()}")
    root = Path(tempfile.mkdtemp(prefix="bff-upload-backlog-"))
    try:
        asyncio.run(bench(args, root))
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
