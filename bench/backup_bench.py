"""Backup and restore throughput at the scale volume (50 staff, 5,000 folders, 100,000 files).

Seeds a deployment in a temporary directory with `python -m tools.scale_demo` (SQLite and local
disk by default; --postgres: a throwaway PostgreSQL database at 127.0.0.1:5432, and the restore
goes into another one), then times `python -m bff backup DIR` and `python -m bff restore DIR`
into a fresh database and storage, and prints objects/s, MB/s and rows/s of each, and the peak
memory of each process (it streams: memory does not grow with the volume).

Usage: .venv/bin/python bench/backup_bench.py [--postgres] [--folders 5000 --files 100000]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# Run as a script (bench/x.py), the repo root is not on the path: the tooling lives there.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tools.devserver import REPO, local_env, throwaway_postgres


def command(env: dict[str, str], *args: str) -> tuple[float, int, str]:
    """Run a command; (seconds, its peak resident memory in bytes, its output). Exits on
    failure."""
    start = time.perf_counter()
    with tempfile.TemporaryFile() as out:
        process = subprocess.Popen(  # noqa: S603 - our own interpreter, fixed arguments
            [sys.executable, *args], env=env, cwd=REPO, stdout=out, stderr=subprocess.STDOUT
        )
        _, status, usage = os.wait4(process.pid, 0)
        process.returncode = os.waitstatus_to_exitcode(status)
        seconds = time.perf_counter() - start
        out.seek(0)
        output = out.read().decode()
    if process.returncode:
        raise SystemExit(f"{' '.join(args)} failed:\n{output}")
    return seconds, usage.ru_maxrss * 1024, output


def figures(label: str, seconds: float, objects: int, size: int, rows: int, peak: int) -> None:
    print(
        f"{label}: {seconds:.1f} s  {objects / seconds:.0f} objects/s  "
        f"{size / seconds / 2**20:.1f} MB/s  {rows / seconds:.0f} rows/s  "
        f"(peak memory {peak / 2**20:.0f} MB)",
        flush=True,
    )


async def run(args: argparse.Namespace) -> None:
    root = Path(tempfile.mkdtemp(prefix="bff-backup-bench-"))
    try:
        async with contextlib.AsyncExitStack() as stack:
            source = local_env(root / "source", admin_password="backup-bench-admin-password")
            target = local_env(root / "target")
            target["BFF_VAR_DIR"] = source["BFF_VAR_DIR"]
            if args.postgres:
                for env, prefix in ((source, "bff_backup_src"), (target, "bff_backup_dst")):
                    env["BFF_DATABASE_URL"] = await stack.enter_async_context(
                        throwaway_postgres(prefix)
                    )
            (root / "source").mkdir()
            seed = [
                "-m",
                "tools.scale_demo",
                f"--folders={args.folders}",
                f"--files={args.files}",
                "--staff-password=backup-bench-staff-password",
            ]
            seconds, _, _ = command(source, *seed)
            print(f"# seeded {args.files} files in {args.folders} folders in {seconds:.0f} s")
            snapshot = root / "snapshot"
            seconds, peak, _ = command(source, "-m", "bff", "backup", str(snapshot))
            manifest = json.loads((snapshot / "manifest.json").read_text())["manifest"]
            objects = manifest["storage"]["objects"]
            size = manifest["storage"]["bytes"]
            rows = sum(manifest["database"]["tables"].values())
            on_disk = sum(p.stat().st_size for p in snapshot.rglob("*") if p.is_file())
            print(
                f"# snapshot: {objects} objects ({size / 2**20:.0f} MB), {rows} rows, "
                f"{on_disk / 2**20:.0f} MB on disk; database {manifest['database']['dialect']}"
            )
            figures("backup", seconds, objects, size, rows, peak)
            seconds, peak, output = command(target, "-m", "bff", "restore", str(snapshot))
            if "Restore verified" not in output:
                raise SystemExit(output)
            figures("restore (with verification)", seconds, objects, size, rows, peak)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--postgres", action="store_true", help="throwaway PostgreSQL databases")
    parser.add_argument("--folders", type=int, default=5_000)
    parser.add_argument("--files", type=int, default=100_000)
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
