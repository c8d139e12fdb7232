"""How long `python -m bff audit verify` takes, and how much memory it needs, as the audit log
grows: it streams, so the peak memory should not grow with the log.

Builds a keyed chain of N entries (HMAC with the audit key, as the server writes them) in a
throwaway SQLite database, writes a checkpoint, then runs `audit verify` in its own process and
reports its wall time and peak resident memory (its own ru_maxrss, from wait4).

    .venv/bin/python bench/audit_verify_bench.py --entries 100000 1000000
"""

from __future__ import annotations

import argparse
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bff.audit.models import AuditLog
from bff.audit.service import GENESIS_HASH, AuditKeys, entry_hash
from config.settings import load_settings
from tools.devserver import REPO, local_env

COLUMNS = (
    "timestamp, user_id, name, role, operation, container_name, folder_name, blob_name, "
    "client_address, details, prev_hash, hash"
)


def bff(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """Run the CLI."""
    return subprocess.run(  # noqa: S603 - our own CLI
        [sys.executable, "-m", "bff", *args], env=env, cwd=REPO, capture_output=True, text=True,
        check=False,
    )  # fmt: skip


def verify(env: dict[str, str]) -> tuple[str, int, float]:
    """`audit verify`: its output, exit status and peak resident memory in MB (this child's
    own, from wait4)."""
    child = subprocess.Popen(
        [sys.executable, "-m", "bff", "audit", "verify"], env=env, cwd=REPO,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    assert child.stdout is not None
    output = child.stdout.read()
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    return output, child.returncode, usage.ru_maxrss / 1024


def build(root: Path, count: int) -> dict[str, str]:
    """A migrated database under root holding a keyed chain of count entries."""
    env = local_env(root)
    assert bff(env, "migrate").returncode == 0
    key = AuditKeys.derive(load_settings(var_dir=root / "var").audit_signing_key()).entries
    start = datetime(2026, 1, 1, tzinfo=UTC)
    prev = GENESIS_HASH
    with sqlite3.connect(root / "bff.sqlite3") as db:
        for first in range(0, count, 10_000):
            rows = []
            for i in range(first, min(count, first + 10_000)):
                entry = AuditLog(
                    timestamp=start + timedelta(seconds=i),
                    user_id=7,
                    name="Nurse Nora",
                    role="nurse",
                    operation="file_view",
                    container_name=f"ward-{i % 50}",
                    folder_name=f"patient-{i % 5000}",
                    blob_name=f"scan-{i}.pdf",
                    client_address="10.0.0.9",
                    details="",
                )
                digest = entry_hash(prev, entry, key)
                rows.append((
                    entry.timestamp.isoformat(timespec="microseconds"), 7, entry.name,
                    entry.role, entry.operation, entry.container_name, entry.folder_name,
                    entry.blob_name, entry.client_address, "", prev, digest,
                ))  # fmt: skip
                prev = digest
            db.executemany(
                f"INSERT INTO audit_logs ({COLUMNS}) VALUES ({', '.join('?' * 12)})",
                rows,
            )
    assert bff(env, "audit", "checkpoint").returncode == 0
    return env


def main() -> None:
    """Print the figures."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--entries", type=int, nargs="+", default=[100_000, 1_000_000])
    args = parser.parse_args()
    print(f"{'entries':>10} {'verify s':>9} {'entries/s':>10} {'peak RSS MB':>12}")
    for count in args.entries:
        root = Path(tempfile.mkdtemp(prefix="bff-audit-bench-"))
        try:
            env = build(root, count)
            began = time.perf_counter()
            output, code, peak_mb = verify(env)
            seconds = time.perf_counter() - began
            assert code == 0 and f"intact: {count} entries" in output, output
            print(
                f"{count:>10} {seconds:>9.1f} {count / seconds:>10.0f} {peak_mb:>12.0f}", flush=True
            )
        finally:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
