"""Malware scanning benchmark: upload throughput and p99 with clamd scanning beside without.

Starts a real clamd (tools/testclamd.py: its own two-signature database, so clamd's time is the
engine's streaming cost, not the full database's matching) and two `python -m bff serve` on the
embedded defaults (SQLite, local disk) in temporary directories on 127.0.0.1, one with
BFF_CLAMD set and one without, then uploads the same files to each in turn (interleaved, so
both see the same load) and prints per size (1 MB, 10 MB, 50 MB):

- throughput (MB/s, median of the rounds) and p99 latency of an upload without and with
  scanning, and their ratio (target: scanned at least 0.8 of unscanned throughput);
- clamd's own scan of a new content of that size, straight on its socket, and the ratio it
  leaves possible for any upload judged before it is answered (`clamd_alone`);

then the periodic rescan's rate (bff/scan/rescan.py): the scanning server stopped, its files'
last scans set two days back, one bounded run (`--rescan-batch` files, the run's own count by
default) in this process on its database and storage: files/s and MB/s.

Usage: .venv/bin/python bench/scan_bench.py [--sizes 1,10,50] [--rounds 10] [--rescan-batch 20]
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import aiohttp

# Run as a script (bench/x.py), the repo root is not on the path: the tooling lives there.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from files_bench import call, sign_in  # beside this file (the script's folder is on sys.path)

from bff.scan.clamd import Instream
from bff.scan.rescan import RESCAN_BATCH
from tools.devserver import ServerProcess, local_env
from tools.testclamd import RunningClamd

MB = 1024 * 1024
BOUNDARY = "scan-bench-boundary-1c9e"
ADMIN_PASSWORD = "bench-admin-password"
CONTAINER = "bench-ward"
FOLDER = "patient-0"


def text_file(path: Path, size: int) -> None:
    """size bytes of plain text (lines of random base64): a kind every content check accepts."""
    with path.open("wb") as handle:
        written = 0
        while written < size:
            line = base64.b64encode(os.urandom(57)) + b"\n"  # 77 bytes
            handle.write(line[: size - written])
            written += len(line)


async def file_body(path: Path, name: str) -> AsyncIterator[bytes]:
    """The multipart body of one upload of path under name; its first line is the name, so every
    upload's content is new to clamd (clamd keeps the hashes of content it found clean and
    answers a second scan of the same bytes from that cache, which no real upload gets)."""
    yield (
        f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="{name}"\r\n'
        f"Content-Type: text/plain\r\n\r\n{name}\n"
    ).encode()
    with path.open("rb") as handle:
        while chunk := await asyncio.to_thread(handle.read, MB):
            yield chunk
    yield f"\r\n--{BOUNDARY}--\r\n".encode()


class Server:
    def __init__(self, label: str, root: Path, **settings: str) -> None:
        self.label = label
        self.process = ServerProcess(
            local_env(
                root,
                admin_password=ADMIN_PASSWORD,
                max_upload_mb="60",
                job_workers="0",
                **settings,
            )
        )
        self.token = ""

    async def prepare(self, session: aiohttp.ClientSession) -> None:
        base = self.process.base
        self.token = await sign_in(session, base, "admin", ADMIN_PASSWORD)
        await call(
            session, "POST", f"{base}/api/admin/containers", self.token, json={"name": CONTAINER}
        )
        await call(
            session,
            "POST",
            f"{base}/api/admin/containers/{CONTAINER}/folders",
            self.token,
            json={"name": FOLDER},
        )

    async def upload(self, session: aiohttp.ClientSession, source: Path, name: str) -> float:
        length = sum([len(c) async for c in file_body(source, name)])
        start = time.perf_counter()
        async with session.post(
            f"{self.process.base}/api/blobs/{CONTAINER}/{FOLDER}",
            data=file_body(source, name),
            headers={
                "x-auth-token": self.token,
                "Content-Type": f"multipart/form-data; boundary={BOUNDARY}",
                "Content-Length": str(length),
            },
        ) as response:
            body = await response.text()
            assert response.status == 201, f"{self.label}: {response.status} {body}"
        return time.perf_counter() - start


def p99(samples: list[float]) -> float:
    ordered = sorted(samples)
    return ordered[max(0, round(len(ordered) * 0.99) - 1)]


async def run(args: argparse.Namespace) -> None:
    root = Path(tempfile.mkdtemp(prefix="bff-scan-bench-"))
    clamd = RunningClamd(root / "clamd", stream_max_mb=100)
    servers: list[Server] = []
    try:
        clamd.start()
        servers = [
            Server("without scanning", root / "plain"),
            Server("with scanning", root / "scanned", clamd=clamd.address, scan_max_mb="100"),
        ]
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=600)) as session:
            for server in servers:
                await server.prepare(session)
            print(f"# clamd {clamd.address}; data in {root}", flush=True)
            for size in args.sizes:
                source = root / f"source-{size}.txt"
                text_file(source, size * MB)
                times: dict[str, list[float]] = {s.label: [] for s in servers}
                for round_ in range(args.rounds):
                    order = servers if round_ % 2 == 0 else servers[::-1]
                    for server in order:
                        name = f"file-{size}-{round_}-{server.process.port}.txt"
                        times[server.label].append(await server.upload(session, source, name))
                rates = {}
                for label, samples in times.items():
                    rates[label] = size / statistics.median(samples)
                    print(
                        f"{size} MB upload {label}: {rates[label]:.1f} MB/s, "
                        f"p99 {p99(samples) * 1000:.0f} ms ({len(samples)} uploads)",
                        flush=True,
                    )
                ratio = rates["with scanning"] / rates["without scanning"]
                verdict = "meets target" if ratio >= 0.8 else "MISSES target"
                print(
                    f"{size} MB scanned / unscanned throughput: {ratio:.2f} "
                    f"(target >= 0.8) [{verdict}]",
                    flush=True,
                )
                await clamd_alone(clamd.address, source, size, rates["without scanning"])
                source.unlink()
        servers[1].process.stop()  # its periodic rescan must not take the run's files
        await rescan_rate(root / "scanned", clamd.address, args.rescan_batch)
    finally:
        for server in servers:
            server.process.stop()
        clamd.stop()
        shutil.rmtree(root, ignore_errors=True)


async def clamd_alone(address: str, source: Path, size: int, unscanned_rate: float) -> None:
    """clamd's own time for a new content of this size, streamed straight to its socket from
    memory (3 contents, each new to clamd: median), and what it allows: an upload judged before
    it is answered takes at least its unscanned time plus clamd's scan, so its throughput ratio
    is at most unscanned time / (unscanned time + clamd's time)."""
    data = await asyncio.to_thread(source.read_bytes)
    samples = []
    for round_ in range(3):
        stream = Instream(address, 600)
        await stream.open()
        await stream.send(f"clamd alone {round_} {time.time_ns()}\n".encode())
        for start in range(0, len(data), MB):
            await stream.send(data[start : start + MB])
        started = time.perf_counter()
        await stream.answer()  # the stream's end: clamd scans it all now
        samples.append(time.perf_counter() - started)
    scan = statistics.median(samples)
    upload = size / unscanned_rate
    print(
        f"{size} MB clamd alone: its scan after the stream's end {scan * 1000:.0f} ms "
        f"({size / scan:.0f} MB/s); ratio possible for an upload judged before its answer: "
        f"at most {upload / (upload + scan):.2f}",
        flush=True,
    )


async def rescan_rate(root: Path, address: str, batch: int) -> None:
    """One bounded rescan run over the scanned server's files, all made due."""
    from bff.cli_support import with_storage
    from bff.files.models import StoredFile
    from bff.scan.rescan import rescan_files
    from config.settings import load_settings
    from storage.base import Storage

    settings = load_settings(
        database_url=f"sqlite://{root}/bff.sqlite3",
        storage_url=f"file://{root}/storage",
        var_dir=root / "var",
        redis_url="",
        clamd=address,
        scan_max_mb=100,
    )

    async def run(storage: Storage) -> int:
        await StoredFile.all().update(scanned_at=datetime.now(UTC) - timedelta(days=2))
        start = time.perf_counter()
        scanned = await rescan_files(storage, batch=batch, budget_seconds=3600)
        seconds = time.perf_counter() - start
        due = await StoredFile.filter(scanned_at__gte=datetime.now(UTC) - timedelta(hours=1))
        size = sum(row.size for row in due) / MB
        print(
            f"rescan run of {scanned} files ({size:.0f} MB) in {seconds:.2f} s: "
            f"{scanned / seconds:.1f} files/s, {size / seconds:.1f} MB/s",
            flush=True,
        )
        return 0

    await with_storage(settings, run)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--sizes", type=lambda v: [int(s) for s in v.split(",")], default=[1, 10, 50]
    )
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--rescan-batch", type=int, default=RESCAN_BATCH)
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
