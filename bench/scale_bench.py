"""Scale benchmark: read latencies at a realistic volume (50 staff, 5,000 folders, 100,000 files).

Starts `python -m bff serve` on 127.0.0.1 in a temporary directory (SQLite by default; with
--postgres a throwaway PostgreSQL database at 127.0.0.1:5432, created and dropped here), seeds
it with `python -m tools.scale_demo` (same settings), adds audit entries by real traffic (folder
listings by staff), then prints the median and p95 of each read a staff member or an admin
makes, one per line (target: under 50 ms):

- staff: folder listing, my-assignments, my-assignments/stats, a container's folders (paged);
- admin: container list and folder list pages (server paging with q), the users list, one
  user's assignments, every user with every assignment (an export, 1 MB at this volume), the
  audit-log query (GET /api/blobs/audit with filters).

Usage: .venv/bin/python bench/scale_bench.py [--postgres] [--requests 30] [--folders 5000]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import aiohttp

# Run as a script (bench/x.py), the repo root is not on the path: the tooling lives there.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tools.devserver import local_env, start_server

REPO = Path(__file__).resolve().parents[1]
ADMIN_PASSWORD = "scale-bench-admin-password"
STAFF_PASSWORD = "scale-bench-staff-password"
TARGET_MS = 50.0


def report(label: str, samples: list[float]) -> None:
    """Print the median and p95 of samples (ms) against the target."""
    samples = sorted(samples)
    median = statistics.median(samples)
    p95 = samples[max(0, int(len(samples) * 0.95) - 1)]
    for name, value in (("median", median), ("p95", p95)):
        mark = "meets target" if value < TARGET_MS else "MISSES target"
        print(
            f"{label} {name}: {value:.1f} ms  (target < {TARGET_MS:.0f} ms)  [{mark}]", flush=True
        )


async def sign_in(http: aiohttp.ClientSession, base: str, user: str, password: str) -> str:
    async with http.post(
        f"{base}/api/auth/login", json={"username": user, "password": password}
    ) as response:
        if response.status != 200:
            raise SystemExit(f"sign-in as {user} -> {response.status} {await response.text()}")
        token: str = (await response.json())["token"]
        return token


async def get_json(http: aiohttp.ClientSession, url: str, token: str) -> Any:
    async with http.get(url, headers={"x-auth-token": token}) as response:
        if response.status != 200:
            raise SystemExit(f"GET {url} -> {response.status} {await response.text()}")
        return await response.json()


async def latencies(http: aiohttp.ClientSession, url: str, token: str, count: int) -> list[float]:
    """Milliseconds of count sequential GETs of url (after two warm-up requests)."""
    for _ in range(2):
        await get_json(http, url, token)
    samples = []
    for _ in range(count):
        start = time.perf_counter()
        async with http.get(url, headers={"x-auth-token": token}) as response:
            await response.read()
            if response.status != 200:
                raise SystemExit(f"GET {url} -> {response.status}")
        samples.append((time.perf_counter() - start) * 1000)
    return samples


def seed(env: dict[str, str], args: argparse.Namespace) -> float:
    """Run `python -m tools.scale_demo` with the server's settings; return its seconds."""
    command = [
        sys.executable,
        "-m",
        "tools.scale_demo",
        f"--staff={args.staff}",
        f"--containers={args.containers}",
        f"--folders={args.folders}",
        f"--files={args.files}",
        f"--staff-password={STAFF_PASSWORD}",
    ]
    start = time.perf_counter()
    with subprocess.Popen(  # noqa: S603 - a fixed command
        command, env=env, cwd=REPO, stdout=subprocess.PIPE, text=True
    ) as process:
        assert process.stdout is not None
        for line in process.stdout:
            if "password" not in line:  # the admin's is known; staff share STAFF_PASSWORD
                print(f"# demo: {line.rstrip()}", flush=True)
    if process.returncode:
        raise SystemExit(f"tools.scale_demo failed with exit code {process.returncode}")
    return time.perf_counter() - start


async def audit_traffic(
    http: aiohttp.ClientSession, base: str, tokens: list[str], folders: list[list[str]], total: int
) -> float:
    """Make `total` audited folder listings, spread over staff; return the seconds taken."""
    gate = asyncio.Semaphore(8)

    async def one(n: int) -> None:
        who = n % len(tokens)
        container, folder = folders[who][(n // len(tokens)) % len(folders[who])].split("/")
        async with gate:
            await get_json(http, f"{base}/api/blobs/{container}/{folder}", tokens[who])

    start = time.perf_counter()
    await asyncio.gather(*(one(n) for n in range(total)))
    return time.perf_counter() - start


async def bench(http: aiohttp.ClientSession, base: str, args: argparse.Namespace) -> None:
    admin = await sign_in(http, base, "admin", ADMIN_PASSWORD)
    usernames = [u["username"] for u in (await get_json(http, f"{base}/api/users", admin))["users"]]
    # A nurse first: the member of staff whose reads are measured.
    staff = sorted((u for u in usernames if u != "admin"), key=lambda u: not u.startswith("nurse"))
    staff = staff[: args.audit_staff]
    tokens = [await sign_in(http, base, u, STAFF_PASSWORD) for u in staff]
    assigned: list[list[str]] = []
    for token in tokens:
        mine = (await get_json(http, f"{base}/api/assignments/my-assignments", token))[
            "assignments"
        ]
        assigned.append(
            [f"{a['containerName']}/{f['folderName']}" for a in mine for f in a["folders"]]
        )
    seconds = await audit_traffic(http, base, tokens, assigned, args.audit_entries)
    print(
        f"# {args.audit_entries} audited folder listings by {len(tokens)} staff "
        f"(8 at a time) took {seconds:.1f} s ({args.audit_entries / seconds:.0f}/s)",
        flush=True,
    )

    nurse, nurse_name = tokens[0], staff[0]
    mine = (await get_json(http, f"{base}/api/assignments/my-assignments", nurse))["assignments"]
    container = mine[0]["containerName"]
    folder = mine[0]["folders"][len(mine[0]["folders"]) // 2]["folderName"]
    stats = await get_json(http, f"{base}/api/assignments/my-assignments/stats", nurse)
    summary = stats["summary"]
    folders_total = (
        await get_json(
            http, f"{base}/api/assignments/containers/{container}/folders?pageSize=1", admin
        )
    )["total"]
    print(
        f"# staff member {nurse_name}: {summary['containerCount']} containers, "
        f"{summary['folderCount']} folders, {summary['totalFiles']} files; "
        f"container {container} has {folders_total} folders",
        flush=True,
    )
    n = args.requests
    api = f"{base}/api"
    files = len((await get_json(http, f"{api}/blobs/{container}/{folder}", nurse))["blobs"])
    report(
        f"staff: folder listing ({files} files)",
        await latencies(http, f"{api}/blobs/{container}/{folder}", nurse, n),
    )
    report(
        f"staff: my-assignments ({summary['folderCount']} folders)",
        await latencies(http, f"{api}/assignments/my-assignments", nurse, n),
    )
    report(
        f"staff: my-assignments/stats ({summary['totalFiles']} files)",
        await latencies(http, f"{api}/assignments/my-assignments/stats", nurse, n),
    )
    page = urlencode({"page": 2, "pageSize": 50})
    report(
        "staff: a container's folders, page 2 of 50",
        await latencies(http, f"{api}/assignments/containers/{container}/folders?{page}", nurse, n),
    )
    page = urlencode({"q": "clinic-1", "page": 1, "pageSize": 10})
    report(
        "admin: container list, q=clinic-1, page 1 of 10",
        await latencies(http, f"{api}/assignments/containers?{page}", admin, n),
    )
    page = urlencode({"page": 3, "pageSize": 50})
    report(
        f"admin: folder list ({folders_total} folders), page 3 of 50",
        await latencies(http, f"{api}/assignments/containers/{container}/folders?{page}", admin, n),
    )
    page = urlencode({"q": "patient-01", "page": 2, "pageSize": 50})
    report(
        "admin: folder list, q=patient-01, page 2 of 50",
        await latencies(http, f"{api}/assignments/containers/{container}/folders?{page}", admin, n),
    )
    users = (await get_json(http, f"{api}/users", admin))["users"]
    user_id = next(u["id"] for u in users if u["username"] == nurse_name)
    folder_count = sum(u["folderCount"] for u in users)
    report(
        f"admin: users list ({len(users)} users, containers and folder counts)",
        await latencies(http, f"{api}/users", admin, n),
    )
    report(
        "admin: one user with assignments (the assign page, 300 folders)",
        await latencies(http, f"{api}/users/{user_id}", admin, n),
    )
    report(
        f"admin: every user with every assignment ({folder_count} folders, not paged)",
        await latencies(http, f"{api}/users/with-assignments", admin, n),
    )
    since = (datetime.now(UTC) - timedelta(hours=1)).isoformat()
    total = 0
    cursor: int | None = None
    query: dict[str, Any] = {"limit": 200}
    while True:  # count the log, a page at a time
        page_of = await get_json(
            http,
            f"{api}/blobs/audit?{urlencode({**query, **({'cursor': cursor} if cursor else {})})}",
            admin,
        )
        total += len(page_of["auditLogs"])
        cursor = page_of["nextCursor"]
        if cursor is None or total > 1_000_000:
            break
    print(f"# audit log: {total} entries", flush=True)
    for label, filters in (
        ("audit: newest 50", {}),
        ("audit: operation=file_list, page 1", {"operation": "file_list"}),
        ("audit: userId of one staff member", {"userId": user_id}),
        (
            "audit: operation + container + since",
            {"operation": "file_list", "containerName": container, "since": since},
        ),
        ("audit: folderName (one folder)", {"folderName": folder}),
        ("audit: operation=login (rare)", {"operation": "login"}),
    ):
        report(label, await latencies(http, f"{api}/blobs/audit?{urlencode(filters)}", admin, n))


async def run(args: argparse.Namespace) -> None:
    root = Path(tempfile.mkdtemp(prefix="bff-scale-bench-"))
    env = local_env(root, admin_password=ADMIN_PASSWORD)
    try:
        async with contextlib.AsyncExitStack() as stack:
            postgres = "bff_scale_bench" if args.postgres else ""
            server = await start_server(stack, env, postgres)
            kind = "PostgreSQL" if args.postgres else "SQLite"
            print(f"# server pid {server.pid} on {kind} + local disk, data in {root}", flush=True)
            seconds = await asyncio.to_thread(seed, server.env, args)
            print(
                f"seeding {args.staff} staff, {args.containers} containers, {args.folders} "
                f"folders, {args.files} files (tools.scale_demo): {seconds:.1f} s",
                flush=True,
            )
            timeout = aiohttp.ClientTimeout(total=120)
            async with aiohttp.ClientSession(timeout=timeout) as http:
                await bench(http, server.base, args)
            print(f"# server peak memory: {server.memory('VmHWM') / 2**20:.0f} MB", flush=True)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--postgres", action="store_true", help="a throwaway PostgreSQL database")
    parser.add_argument("--requests", type=int, default=30)
    parser.add_argument("--staff", type=int, default=50)
    parser.add_argument("--containers", type=int, default=20)
    parser.add_argument("--folders", type=int, default=5_000)
    parser.add_argument("--files", type=int, default=100_000)
    parser.add_argument("--audit-entries", type=int, default=2_000)
    parser.add_argument("--audit-staff", type=int, default=10)
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
