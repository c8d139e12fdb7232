"""Thumbnails and the viewer's pages: how fast they are rendered, served, and how much memory
rendering costs the server.

1. Thumbnails per second: the thumbnail job's own work (bff/files/previews.py
   `thumbnail_job`, what the "thumbnail" job kind runs) in a real WorkerPool of --workers
   processes, for --count one-page scanned PDFs and --count photos (JPEG 3000x2000).
2. Starts `python -m bff serve` on the embedded defaults (SQLite, local disk; background jobs
   off, so that OCR does not share the cores) and uploads a 20-page scanned PDF (A4 at 150 dpi)
   in --copies copies, then over HTTP as the viewer does:
   - the first page of each copy, never rendered before (GET viewer, then the page at 800 px):
     p50/p95 (target under 500 ms);
   - the same page again (the process's page cache): p50/p95 (target under 20 ms);
   - 20 pages at once at 2000 px (uncached): how many were rendered and how many refused with
     503 (the pool's bound: BFF_CONVERSION_WORKERS running + BFF_CONVERSION_QUEUE waiting),
     and the peak memory of the server with its worker processes meanwhile.

Usage: .venv/bin/python bench/preview_bench.py [--count 20] [--copies 10] [--workers 2]
"""

from __future__ import annotations

import argparse
import asyncio
import io
import os
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import aiohttp
from PIL import Image, ImageDraw

# Run as a script (bench/x.py), the repo root is not on the path: the tooling lives there.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bff.files.previews import thumbnail_job
from bff.jobs.service import FileFacts
from bff.workers import WorkerPool
from tools.devserver import ServerProcess, local_env

MB = 1024 * 1024
ADMIN_PASSWORD = "bench-admin-password"
CONTAINER = "bench-ward"
FOLDER = "patient-0"
BOUNDARY = "bench-boundary-preview"


def scanned_pdf(pages: int) -> bytes:
    """An image-only PDF of A4 pages at 150 dpi with lines of "text" and a box, as a scanner
    makes."""
    images = []
    for number in range(1, pages + 1):
        page = Image.new("L", (1240, 1754), 255)
        draw = ImageDraw.Draw(page)
        draw.text((120, 100), f"Discharge letter, page {number}", fill=0)
        for line in range(60):
            y = 200 + line * 22
            draw.line((120, y, 1120 - (line * 37) % 400, y), fill=40, width=3)
        draw.rectangle((100, 80, 1140, 1680), outline=0, width=4)
        images.append(page.convert("RGB"))
    out = io.BytesIO()
    images[0].save(out, "PDF", save_all=True, append_images=images[1:], resolution=150)
    return out.getvalue()


def photo() -> bytes:
    """A 6-megapixel JPEG (a phone photo of a wound, say)."""
    image = Image.new("RGB", (3000, 2000), (180, 120, 110))
    draw = ImageDraw.Draw(image)
    for n in range(40):
        draw.ellipse((n * 60, n * 40, n * 60 + 900, n * 40 + 700), outline=(n * 6, 40, 90), width=9)
    out = io.BytesIO()
    image.save(out, "JPEG", quality=88)
    return out.getvalue()


def report(label: str, value: float, unit: str, target: str = "", ok: bool | None = None) -> None:
    mark = "" if ok is None else ("  [meets target]" if ok else "  [MISSES target]")
    suffix = f"  (target {target})" if target else ""
    print(f"{label}: {value:.2f} {unit}{suffix}{mark}", flush=True)


def percentiles(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return statistics.median(ordered), ordered[max(0, round(len(ordered) * 0.95) - 1)]


async def thumbnails_per_second(
    root: Path, data: bytes, content_type: str, count: int, workers: int
) -> float:
    """Thumbnails of count copies of data rendered by a WorkerPool of workers processes."""
    path = root / f"source-{content_type.replace('/', '-')}"
    path.write_bytes(data)
    facts = FileFacts("bench", content_type, len(data))
    pool = WorkerPool(workers, count, 120, preload=("bff.files.previews",))
    try:
        await pool.run(thumbnail_job, str(path), facts, 50 * MB)  # workers started
        await asyncio.gather(
            *(pool.run(thumbnail_job, str(path), facts, 50 * MB) for _ in range(workers - 1))
        )
        start = time.perf_counter()
        await asyncio.gather(
            *(pool.run(thumbnail_job, str(path), facts, 50 * MB) for _ in range(count))
        )
        return count / (time.perf_counter() - start)
    finally:
        await pool.close()


def tree_rss(pid: int) -> int:
    """The resident memory of a process and all its descendants, in bytes."""
    total = 0
    pending = [pid]
    while pending:
        current = pending.pop()
        try:
            status = Path(f"/proc/{current}/status").read_text()
            children = Path(f"/proc/{current}/task/{current}/children").read_text().split()
        except OSError:
            continue
        for line in status.splitlines():
            if line.startswith("VmRSS:"):
                total += int(line.split()[1]) * 1024
        pending += [int(child) for child in children]
    return total


class PeakSampler:
    """The peak of tree_rss(pid), sampled every 20 ms in a thread."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.peak = tree_rss(pid)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.wait(0.02):
            self.peak = max(self.peak, tree_rss(self.pid))

    def __enter__(self) -> PeakSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


async def call(
    session: aiohttp.ClientSession, method: str, url: str, token: str, **kwargs: Any
) -> Any:
    async with session.request(method, url, headers={"x-auth-token": token}, **kwargs) as response:
        if response.status >= 400:
            raise SystemExit(f"{method} {url} -> {response.status} {await response.text()}")
        return await response.json()


async def upload(
    session: aiohttp.ClientSession, base: str, token: str, name: str, data: bytes
) -> None:
    form = aiohttp.FormData()
    form.add_field("file", data, filename=name, content_type="application/pdf")
    async with session.post(
        f"{base}/api/blobs/{CONTAINER}/{FOLDER}", data=form, headers={"x-auth-token": token}
    ) as response:
        assert response.status == 201, await response.text()


async def timed_get(session: aiohttp.ClientSession, url: str) -> tuple[int, float]:
    start = time.perf_counter()
    async with session.get(url) as response:
        await response.read()
        return response.status, (time.perf_counter() - start) * 1000


async def served(args: argparse.Namespace, root: Path, pdf: bytes) -> None:
    server = ServerProcess(
        local_env(root / "server", admin_password=ADMIN_PASSWORD, job_workers="0")
    )
    try:
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=600)) as session:
            base = server.base
            async with session.post(
                f"{base}/api/auth/login", json={"username": "admin", "password": ADMIN_PASSWORD}
            ) as response:
                response.raise_for_status()
                admin = (await response.json())["token"]
            await call(
                session, "POST", f"{base}/api/admin/containers", admin, json={"name": CONTAINER}
            )
            await call(
                session,
                "POST",
                f"{base}/api/admin/containers/{CONTAINER}/folders",
                admin,
                json={"name": FOLDER},
            )
            names = [f"letter-{n:02d}.pdf" for n in range(args.copies)]
            for name in names:
                await upload(session, base, admin, name, pdf)
            firsts, again = [], []
            templates = []
            for name in names:
                opened = await call(
                    session, "GET", f"{base}/api/blobs/{CONTAINER}/{FOLDER}/{name}/viewer", admin
                )
                assert opened["pageCount"] == 20, opened
                template = base + opened["pageUrl"]
                templates.append(template)
                status, ms = await timed_get(
                    session, template.replace("{page}", "1").replace("{width}", "800")
                )
                assert status == 200, status
                firsts.append(ms)
            for template in templates:
                for _ in range(5):
                    status, ms = await timed_get(
                        session, template.replace("{page}", "1").replace("{width}", "800")
                    )
                    assert status == 200, status
                    again.append(ms)
            p50, p95 = percentiles(firsts)
            report(
                f"first page of a 20-page scanned PDF at 800 px, p50 (n={len(firsts)})", p50, "ms"
            )
            report(
                "first page of a 20-page scanned PDF at 800 px, p95",
                p95,
                "ms",
                "< 500 ms",
                p95 < 500,
            )
            p50, p95 = percentiles(again)
            report(f"the same page again (cached), p50 (n={len(again)})", p50, "ms")
            report("the same page again (cached), p95", p95, "ms", "< 20 ms", p95 < 20)
            idle = tree_rss(server.pid)
            template = templates[-1]
            with PeakSampler(server.pid) as sampler:
                results = await asyncio.gather(
                    *(
                        timed_get(
                            session,
                            template.replace("{page}", str(page)).replace("{width}", "2000"),
                        )
                        for page in range(1, 21)
                    )
                )
            statuses = [status for status, _ in results]
            rendered = statuses.count(200)
            busy = statuses.count(503)
            print(
                f"20 concurrent uncached pages at 2000 px: {rendered} rendered, {busy} refused "
                f"with 503 (busy), others {len(statuses) - rendered - busy}; slowest "
                f"{max(ms for _, ms in results):.0f} ms",
                flush=True,
            )
            report("server + worker processes, resident before", idle / MB, "MB")
            report("server + worker processes, peak during the 20 renders", sampler.peak / MB, "MB")
    finally:
        server.stop()


async def run(args: argparse.Namespace) -> None:
    root = Path(tempfile.mkdtemp(prefix="bff-preview-bench-"))
    try:
        print(f"# machine: {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}", flush=True)
        one_page = scanned_pdf(1)
        jpeg = photo()
        rate = await thumbnails_per_second(
            root, one_page, "application/pdf", args.count, args.workers
        )
        report(f"thumbnails of one-page scanned PDFs, {args.workers} workers", rate, "per second")
        rate = await thumbnails_per_second(root, jpeg, "image/jpeg", args.count, args.workers)
        report(f"thumbnails of 6-megapixel JPEGs, {args.workers} workers", rate, "per second")
        pdf = scanned_pdf(20)
        print(f"# the 20-page PDF: {len(pdf) / MB:.1f} MB", flush=True)
        await served(args, root, pdf)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=20)
    parser.add_argument("--copies", type=int, default=10)
    parser.add_argument("--workers", type=int, default=2)
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
