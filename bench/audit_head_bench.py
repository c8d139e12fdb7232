"""What the audit log's signed head costs: one head write (lease, the stored head and its entry
checked, the newest entry read, the head signed and stored, the lease given back), and how soon
after a commit the head names it, in a real app on SQLite (or PostgreSQL) with local storage.

    .venv/bin/python bench/audit_head_bench.py [--writes 200] [--database postgres]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bff.app import create_app
from bff.audit import head as audit_head
from bff.audit import repository
from bff.audit.service import Actor, record_alone
from bff.db import migrate
from bff.services import app_services
from config.settings import load_settings
from tools.devserver import throwaway_postgres

ACTOR = Actor(7, "Bench", "nurse", "127.0.0.1")


async def run(writes: int, database_url: str, root: Path) -> None:
    settings = load_settings(
        database_url=database_url, storage_url=f"file://{root}/storage", var_dir=root / "var"
    )
    await migrate(settings)
    app = create_app(settings, bootstrap_admin=False)
    async with app.test_app(), app.app_context():
        storage = app_services(app).storage
        durations = []
        for i in range(writes):
            await record_alone(ACTOR, "file_view", container="ward", folder="p", blob=f"{i}")
            started = time.perf_counter()
            await audit_head.write_head(storage)
            durations.append(time.perf_counter() - started)
        lags = []
        for i in range(20):  # the writer's own pace: at most one write a second
            await record_alone(ACTOR, "file_view", container="ward", folder="p", blob=f"l{i}")
            started = time.perf_counter()
            newest = (await repository.head() or (0, ""))[0]
            for _ in range(400):  # bounded: 4 s
                head, _ = await audit_head.read_head(storage)
                if head is not None and head.last_id >= newest:
                    break
                await asyncio.sleep(0.01)
            lags.append(time.perf_counter() - started)
            await asyncio.sleep(0.3)
    ms = sorted(d * 1000 for d in durations)
    print(
        f"{database_url.split(':', 1)[0]}: one head write: median {statistics.median(ms):.1f} ms, "
        f"p95 {ms[int(len(ms) * 0.95)]:.1f} ms over {writes} writes"
    )
    lag = sorted(lags)
    print(
        f"commit -> head names it: median {statistics.median(lag) * 1000:.0f} ms, "
        f"max {lag[-1] * 1000:.0f} ms over {len(lag)} commits 0.3 s apart"
    )


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--writes", type=int, default=200)
    parser.add_argument("--database", choices=["sqlite", "postgres"], default="sqlite")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bff-head-bench-") as scratch:
        root = Path(scratch)
        if args.database == "postgres":
            async with throwaway_postgres("bff_head_bench") as url:
                await run(args.writes, url, root)
        else:
            await run(args.writes, f"sqlite://{root}/bff.sqlite3", root)


if __name__ == "__main__":
    asyncio.run(main())
