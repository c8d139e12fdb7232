"""How long a CSV export of the audit log takes, and how much memory it holds at its peak, as
the export grows: it streams a batch at a time, so the peak should not grow with the entries
(tests/audit/test_reports.py proves that at 2,000 and 8,000 entries; this prints the figures
at the sizes an auditor asks for, where the old test's bound was 8 MB for 100,000 entries).

Fills a throwaway SQLite database with N entries of one folder (hashes are irrelevant to
exports), then exports them oldest first in this process under tracemalloc.

    .venv/bin/python bench/audit_export_bench.py --entries 100000 1000000
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bff.audit import reports, repository
from bff.db import close_db, init_db
from config.settings import load_settings
from tools.devserver import REPO, local_env

COLUMNS = (
    "timestamp, user_id, name, role, operation, container_name, folder_name, blob_name, "
    "client_address, details, prev_hash, hash"
)


def build(root: Path, count: int) -> str:
    """A migrated database under root holding count entries of ward/patient; its URL."""
    env = local_env(root)
    subprocess.run(
        [sys.executable, "-m", "bff", "migrate"], env=env, cwd=REPO, check=True,
        capture_output=True,
    )  # fmt: skip
    with sqlite3.connect(root / "bff.sqlite3") as db:
        for first in range(0, count, 10_000):
            rows = [
                ("2026-01-01T00:00:00.000000+00:00", 7, "Nurse Nora", "nurse", "file_view",
                 "ward", "patient", f"scan-{i}.pdf", "10.0.0.1", "", "0" * 64, f"{i:064x}")
                for i in range(first, min(count, first + 10_000))
            ]  # fmt: skip
            db.executemany(
                f"INSERT INTO audit_logs ({COLUMNS}) VALUES ({', '.join('?' * 12)})",
                rows,
            )
    return env["BFF_DATABASE_URL"]


async def export(root: Path, database_url: str) -> tuple[int, int, float, int]:
    """Export every entry: (lines, bytes, seconds, peak traced bytes)."""
    await init_db(load_settings(database_url=database_url, var_dir=root / "var"))
    try:
        where = repository.AuditFilter(folder_of=("ward", "patient"))
        tracemalloc.start()
        began = time.perf_counter()
        lines = size = 0
        async for chunk in reports.csv_stream(where, oldest_first=True):
            lines += chunk.count(b"\r\n")
            size += len(chunk)
        seconds = time.perf_counter() - began
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        return lines, size, seconds, peak
    finally:
        await close_db()


def main() -> None:
    """Print the figures."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--entries", type=int, nargs="+", default=[100_000, 1_000_000])
    args = parser.parse_args()
    print(f"{'entries':>10} {'export s':>9} {'CSV MB':>8} {'peak traced MB':>15}")
    for count in args.entries:
        root = Path(tempfile.mkdtemp(prefix="bff-export-bench-"))
        try:
            lines, size, seconds, peak = asyncio.run(export(root, build(root, count)))
            assert lines == count + 1, lines  # the header and every entry
            print(f"{count:>10} {seconds:>9.1f} {size / 1e6:>8.1f} {peak / 1e6:>15.1f}", flush=True)
        finally:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
