"""Intake benchmark (issue 51): pages per minute through the routing's heavy steps, and the time
from a scan landing in the scan folder to its being filed by its cover sheet.

1. Throughput, in a WorkerPool of --workers processes as the app runs them: barcode reading
   (bff/intake/barcodes.read_codes, pages rendered at 150 dpi) of an image-only scan of
   --pages pages, and OCR (bff/search/extract.extract_text, the search's extraction, 300 dpi,
   tesseract) of a --ocr-pages page one. The scans are made as tests/intake/sheet_scans.py makes
   them: printed letters rendered at 200 dpi, turned a little, with noise.
2. Latency: a real clamd (tools/testclamd.py) and `python -m bff serve` (SQLite, local disk)
   with BFF_INTAKE_FOLDER set; a folder created through the API; then --rounds times a 3-page
   scan (the folder's cover sheet and 2 letter pages) written into the scan folder under a
   partial name and renamed (as a scanner's share does), timed until the inbox shows the
   document filed (polling GET /api/intake/items?status=filed every 50 ms). The time includes
   the scan folder's settling (BFF_INTAKE_SETTLE_SECONDS, default 2 s: a file is taken once it
   stopped growing), the malware scan, the barcode reading, the split (the sheet removed) and
   the filing; a routed document needs no OCR.

Usage: .venv/bin/python bench/intake_bench.py [--pages 10] [--ocr-pages 3] [--rounds 5]
"""

from __future__ import annotations

import argparse
import asyncio
import secrets
import statistics
import sys
import tempfile
import time
from pathlib import Path

import aiohttp

# Run as a script (bench/x.py), the repo root is not on the path: the tooling lives there.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from files_bench import call, sign_in  # beside this file (the script's folder is on sys.path)

from bff.intake import sheets
from bff.intake.barcodes import read_codes
from bff.jobs.work import FileFacts
from bff.search.extract import TextOptions, extract_text
from bff.workers import WorkerPool
from config.settings import load_settings
from tests.intake.sheet_scans import letter_pdf, page_picture, scan_pdf
from tools.devserver import ServerProcess, local_env, query_database
from tools.testclamd import RunningClamd

ADMIN_PASSWORD = "bench-admin-password"
CONTAINER = "intake-bench"
FOLDER = "patient-1"
GIVE_UP = 120.0
SETTLE_SECONDS = 2.0  # BFF_INTAKE_SETTLE_SECONDS's default, which the server keeps


def scan(path: Path, pdfs: list[bytes]) -> Path:
    """pdfs' first pages scanned into one image-only PDF at path."""
    pictures = [page_picture(pdf, (0.8, -1.2, 1.5, -0.6)[i % 4], i) for i, pdf in enumerate(pdfs)]
    return scan_pdf(path, pictures)


def letters(count: int) -> list[bytes]:
    return [letter_pdf(f"Letter {i} {secrets.token_hex(3)}") for i in range(count)]


async def throughput(root: Path, pages: int, ocr_pages: int, workers: int) -> None:
    """Pages a minute through barcode reading and through OCR, in a worker pool."""
    pool = WorkerPool(workers, 8, 600.0, preload=("bff.intake.barcodes", "bff.search.extract"))
    try:
        codes_scan = scan(root / "codes.pdf", letters(pages))
        await pool.run(read_codes, str(scan(root / "warm.pdf", letters(1))))  # workers started
        start = time.perf_counter()
        await pool.run(read_codes, str(codes_scan))
        seconds = time.perf_counter() - start
        print(
            f"barcodes: {pages} pages in {seconds:.2f} s, one scan in one worker: "
            f"{pages / seconds * 60:.0f} pages/min"
        )
        parts = [scan(root / f"codes-{i}.pdf", letters(pages)) for i in range(workers)]
        start = time.perf_counter()
        await asyncio.gather(*(pool.run(read_codes, str(part)) for part in parts))
        seconds = time.perf_counter() - start
        print(
            f"barcodes: {pages * workers} pages in {seconds:.2f} s, {workers} scans at once: "
            f"{pages * workers / seconds * 60:.0f} pages/min"
        )
        ocr_scan = scan(root / "ocr.pdf", letters(ocr_pages))
        options = TextOptions(max_ocr_pages=ocr_pages, ocr_timeout=300.0)
        facts = FileFacts("ocr.pdf", "application/pdf", ocr_scan.stat().st_size)
        start = time.perf_counter()
        result = await pool.run(extract_text, str(ocr_scan), facts, options)
        seconds = time.perf_counter() - start
        print(
            f"OCR: {result.ocr_pages} pages in {seconds:.2f} s, one worker: "
            f"{result.ocr_pages / seconds * 60:.1f} pages/min"
        )
    finally:
        await pool.close()


async def until_filed(session: aiohttp.ClientSession, base: str, token: str, seen: set[int]) -> int:
    deadline = time.monotonic() + GIVE_UP
    while time.monotonic() < deadline:
        body = await call(
            session, "GET", f"{base}/api/intake/items?status=filed&pageSize=100", token
        )
        for item in body["items"]:
            if item["id"] not in seen:
                seen.add(item["id"])
                return int(item["id"])
        await asyncio.sleep(0.05)
    raise SystemExit("the scan was not filed within the time given")


async def latency(root: Path, rounds: int) -> None:
    """Seconds from a 3-page cover-sheet scan landing in the scan folder to its filing."""
    inbox = root / "scans"
    inbox.mkdir()
    with RunningClamd(root / "clamd") as clamd:
        server = ServerProcess(
            local_env(
                root / "server",
                admin_password=ADMIN_PASSWORD,
                job_workers="0",
                clamd=clamd.address,
                intake_folder=str(inbox),
            )
        )
        try:
            base = server.base
            async with aiohttp.ClientSession() as session:
                token = await sign_in(session, base, "admin", ADMIN_PASSWORD)
                await call(
                    session,
                    "POST",
                    f"{base}/api/admin/containers",
                    token,
                    json={"name": CONTAINER},
                )
                await call(
                    session,
                    "POST",
                    f"{base}/api/admin/containers/{CONTAINER}/folders",
                    token,
                    json={"name": FOLDER},
                )
                [(folder_id,)] = await query_database(
                    server.env["BFF_DATABASE_URL"],
                    f"SELECT id FROM folders WHERE name = '{FOLDER}'",
                )
                key = load_settings(
                    var_dir=root / "server" / "var", intake_sheet_key=""
                ).intake_sheet_mac_key()
                seen: set[int] = set()
                times = []
                for round_ in range(rounds):
                    code = sheets.sign(folder_id, sheets.new_sheet_id(), key)
                    cover = sheets.cover_sheet_pdf("Ann Smith", "03/03/1961", "1", "Ward", code)
                    made = scan(root / f"round-{round_}.pdf", [cover, *letters(2)])
                    partial = inbox / f".scan-{round_}.pdf.part"
                    partial.write_bytes(made.read_bytes())
                    start = time.perf_counter()
                    partial.rename(inbox / f"scan-{round_}.pdf")
                    await until_filed(session, base, token, seen)
                    times.append(time.perf_counter() - start)
                    print(f"round {round_ + 1}: filed {times[-1]:.2f} s after landing")
                print(
                    f"landing to filed, 3-page cover-sheet scan: median "
                    f"{statistics.median(times):.2f} s, worst {max(times):.2f} s "
                    f"(the scan folder's settling, {SETTLE_SECONDS:.0f} s, included)"
                )
        finally:
            server.stop()


async def run(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory(prefix="intake-bench-") as folder:
        root = Path(folder)
        await throughput(root, args.pages, args.ocr_pages, args.workers)
        await latency(root, args.rounds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=10)
    parser.add_argument("--ocr-pages", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=5)
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
