"""Files benchmark: upload/view speed and memory for a 50MB file, listing and stats latency.

Starts `python -m bff serve` on the embedded defaults (SQLite, local disk) in a temporary
directory on 127.0.0.1, then prints one figure per line:

- upload and view throughput of a 50MB file, beside a plain copy of the same file on the same
  disk (with fsync, as an upload does), as ratios (target: at least 0.5);
- the server's peak memory growth during the upload (target: under 20MB);
- median and p95 latency of a folder listing and of the statistics endpoint with 200 folders
  of 200 files each (target: under 50 ms).

Usage: .venv/bin/python bench/files_bench.py [--size-mb 50] [--folders 200] [--files 200]
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp

# Run as a script (bench/x.py), the repo root is not on the path: the tooling lives there.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tools.devserver import ServerProcess, local_env, query_database

REPO = Path(__file__).resolve().parents[1]
MB = 1024 * 1024
BOUNDARY = "bench-boundary-5f2c"
ADMIN_PASSWORD = "bench-admin-password"
NURSE_PASSWORD = "bench-nurse-password"
CONTAINER = "bench-ward"


async def job_backlog(database_url: str) -> int:
    """Background jobs not yet done (pending or running)."""
    rows = await query_database(
        database_url, "SELECT count(*) FROM file_jobs WHERE state IN ('pending', 'running')"
    )
    return int(rows[0][0])


async def wait_for_backlog(database_url: str, limit: float) -> float:
    """Seconds until no job is left (bounded by limit)."""
    start = time.perf_counter()
    # The state is in another process's database: polled.
    while await job_backlog(database_url) and time.perf_counter() - start < limit:  # noqa: ASYNC110
        await asyncio.sleep(1)
    return time.perf_counter() - start


def plain_copy_seconds(source: Path, target: Path) -> float:
    """Copy source to target and fsync it, like an upload's durable write."""
    start = time.perf_counter()
    with source.open("rb") as src, target.open("wb") as dst:
        shutil.copyfileobj(src, dst, MB)
        dst.flush()
        os.fsync(dst.fileno())
    elapsed = time.perf_counter() - start
    target.unlink()
    return elapsed


async def file_body(path: Path, name: str) -> AsyncIterator[bytes]:
    yield (
        f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="filename"\r\n\r\n{name}\r\n'
        f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="{name}"\r\n'
        "Content-Type: application/octet-stream\r\n\r\n"
    ).encode()
    with path.open("rb") as handle:
        while chunk := await asyncio.to_thread(handle.read, MB):
            yield chunk
    yield f"\r\n--{BOUNDARY}--\r\n".encode()


async def sign_in(session: aiohttp.ClientSession, base: str, user: str, password: str) -> str:
    async with session.post(
        f"{base}/api/auth/login", json={"username": user, "password": password}
    ) as response:
        response.raise_for_status()
        token: str = (await response.json())["token"]
        return token


async def call(
    session: aiohttp.ClientSession, method: str, url: str, token: str, **kwargs: Any
) -> Any:
    async with session.request(method, url, headers={"x-auth-token": token}, **kwargs) as response:
        if response.status >= 400:
            raise SystemExit(f"{method} {url} -> {response.status} {await response.text()}")
        return await response.json()


async def latencies(
    session: aiohttp.ClientSession, url: str, token: str, count: int
) -> tuple[float, float]:
    samples = []
    for _ in range(count):
        start = time.perf_counter()
        async with session.get(url, headers={"x-auth-token": token}) as response:
            await response.read()
            assert response.status == 200, response.status
        samples.append((time.perf_counter() - start) * 1000)
    samples.sort()
    return statistics.median(samples), samples[int(len(samples) * 0.95) - 1]


def seed_files(storage: Path, folders: list[str], files: int) -> None:
    """Put files straight into storage, as another tool would (then reindex picks them up)."""
    kinds = ["pdf", "txt", "jpg", "csv", "docx"]
    for folder in folders:
        directory = storage / CONTAINER / folder
        directory.mkdir(parents=True, exist_ok=True)
        for index in range(files):
            name = f"record-{index:04d}.{kinds[index % len(kinds)]}"
            (directory / name).write_bytes(b"synthetic bench record %d\n" % index)


def report(label: str, value: float, unit: str, target: str = "", ok: bool | None = None) -> None:
    mark = "" if ok is None else ("  [meets target]" if ok else "  [MISSES target]")
    suffix = f"  (target {target})" if target else ""
    print(f"{label}: {value:.2f} {unit}{suffix}{mark}", flush=True)


async def run(args: argparse.Namespace) -> None:
    root = Path(tempfile.mkdtemp(prefix="bff-bench-"))
    server = ServerProcess(local_env(root, admin_password=ADMIN_PASSWORD))
    try:
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=600)) as session:
            await bench(session, server, root, args)
    finally:
        server.stop()
        shutil.rmtree(root, ignore_errors=True)


async def bench(
    session: aiohttp.ClientSession, server: ServerProcess, root: Path, args: argparse.Namespace
) -> None:
    base = server.base
    admin = await sign_in(session, base, "admin", ADMIN_PASSWORD)
    await call(session, "POST", f"{base}/api/admin/containers", admin, json={"name": CONTAINER})
    await call(
        session,
        "POST",
        f"{base}/api/admin/containers/{CONTAINER}/folders",
        admin,
        json={"name": "patient-0"},
    )
    print(f"# server pid {server.pid}, data in {root}", flush=True)

    # 1. A large file: upload and view beside a plain copy on the same disk.
    source = root / "source.bin"
    with source.open("wb") as handle:
        for _ in range(args.size_mb):
            handle.write(os.urandom(MB))
    digest = hashlib.sha256(source.read_bytes()).hexdigest()
    copies, uploads, views, growths = [], [], [], []
    for round_ in range(args.rounds):
        copies.append(plain_copy_seconds(source, root / "copy.bin"))
        name = f"scan-{round_}.bin"
        server.reset_peak()
        before = server.memory("VmRSS")
        start = time.perf_counter()
        length = sum([len(c) async for c in file_body(source, name)])
        async with session.post(
            f"{base}/api/blobs/{CONTAINER}/patient-0",
            data=file_body(source, name),
            headers={
                "x-auth-token": admin,
                "Content-Type": f"multipart/form-data; boundary={BOUNDARY}",
                "Content-Length": str(length),
            },
        ) as response:
            assert response.status == 201, await response.text()
        uploads.append(time.perf_counter() - start)
        growths.append(server.memory("VmHWM") - before)
        link = await call(
            session, "GET", f"{base}/api/blobs/{CONTAINER}/patient-0/{name}/url", admin
        )
        received = hashlib.sha256()
        start = time.perf_counter()
        async with session.get(base + link["url"]) as response:
            async for chunk in response.content.iter_chunked(MB):
                received.update(chunk)
        views.append(time.perf_counter() - start)
        assert received.hexdigest() == digest, "the viewed bytes differ from the uploaded file"
    size = args.size_mb
    copy_rate = size / statistics.median(copies)
    upload_rate = size / statistics.median(uploads)
    view_rate = size / statistics.median(views)
    report(f"plain copy of {size}MB on the same disk (with fsync)", copy_rate, "MB/s")
    report(f"upload of {size}MB", upload_rate, "MB/s")
    report(f"view of {size}MB", view_rate, "MB/s")
    report(
        "upload / plain copy",
        upload_rate / copy_rate,
        "ratio",
        ">= 0.5",
        upload_rate / copy_rate >= 0.5,
    )
    report(
        "view / plain copy", view_rate / copy_rate, "ratio", ">= 0.5", view_rate / copy_rate >= 0.5
    )
    growth = max(growths) / MB
    report(
        f"server peak memory growth during a {size}MB upload", growth, "MB", "< 20MB", growth < 20
    )

    # 2. Listing and statistics at 200 folders x 200 files.
    folders = [f"patient-{n}" for n in range(1, args.folders + 1)]
    for folder in folders:
        await call(
            session,
            "POST",
            f"{base}/api/admin/containers/{CONTAINER}/folders",
            admin,
            json={"name": folder},
        )
    seed_files(server.storage_path, folders, args.files)
    start = time.perf_counter()
    await asyncio.to_thread(
        subprocess.run,
        [sys.executable, "-m", "bff", "storage", "reindex"],
        env=server.env,
        cwd=REPO,
        check=True,
        stdout=subprocess.DEVNULL,
    )
    report(f"reindex of {args.folders * args.files} files", time.perf_counter() - start, "s")
    await call(
        session,
        "POST",
        f"{base}/api/auth/register",
        admin,
        json={
            "name": "Bench Nurse",
            "username": "bench.nurse",
            "password": NURSE_PASSWORD,
            "role": "nurse",
        },
    )
    users = await call(session, "GET", f"{base}/api/users", admin)
    nurse_id = next(u["id"] for u in users["users"] if u["username"] == "bench.nurse")
    await call(
        session, "POST", f"{base}/api/assignments/containers/{CONTAINER}/users/{nurse_id}", admin
    )
    await call(
        session,
        "POST",
        f"{base}/api/assignments/containers/{CONTAINER}/folders",
        admin,
        json={"userId": nurse_id, "folderNames": folders},
    )
    nurse = await sign_in(session, base, "bench.nurse", NURSE_PASSWORD)
    listing = f"{base}/api/blobs/{CONTAINER}/{folders[len(folders) // 2]}"
    blobs = (await call(session, "GET", listing, nurse))["blobs"]
    assert len(blobs) == args.files, len(blobs)
    stats_url = f"{base}/api/assignments/my-assignments/stats"
    stats = await call(session, "GET", stats_url, nurse)
    assert stats["summary"]["totalFiles"] == args.folders * args.files, stats["summary"]
    # The reindex recorded a text job per file: timed while that backlog drains (a bulk import)
    # and again once it has (the everyday case), side by side.
    database = server.env["BFF_DATABASE_URL"]
    for when in ("while the text backlog drains", "once it has drained"):
        if when.startswith("once"):
            drained = await wait_for_backlog(database, 600)
            report("text backlog drained in", drained, "s")
        backlog = await job_backlog(database)
        median, p95 = await latencies(session, listing, nurse, args.requests)
        name = f"folder listing ({args.files} files) {when} ({backlog} jobs left)"
        report(f"{name} median", median, "ms", "< 50 ms", median < 50)
        report(f"{name} p95", p95, "ms")
        median, p95 = await latencies(session, stats_url, nurse, args.requests)
        label = f"statistics ({args.folders} folders x {args.files} files) {when}"
        report(f"{label} median", median, "ms", "< 50 ms", median < 50)
        report(f"{label} p95", p95, "ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-mb", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--folders", type=int, default=200)
    parser.add_argument("--files", type=int, default=200)
    parser.add_argument("--requests", type=int, default=50)
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
