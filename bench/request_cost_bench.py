"""Instructions per request: GET /api/auth/me on the BFF beside bare Quart serving the same JSON.

Requests per second on this shared 2-core machine swing by a factor of two with what else runs;
instructions do not. So each server runs under valgrind's callgrind (`--instr-atstart=no`),
which counts the instructions every one of its processes and threads executes once counting is
switched on:

- the BFF as the operator starts it: the Procfile's `release`, then its `web` command
  (Hypercorn with config/hypercorn.toml: a parent and one spawned worker, both counted), on
  SQLite and local disk, seeded with the scale demo's small data set; a nurse signed in;
- bench/bare_app.py (in-process Hypercorn, the same config) serving, at /json, the very body
  the BFF answered for that nurse.

Each gets `--warmup` requests, then `--rounds` times: counting on, `--requests` requests one
after another on one keep-alive connection (the client is another process, not counted),
counting off and a dump; the median round counts. Prints instructions per request for both,
and the ratio bare / BFF (issue 37's target: 0.75 or more), with the BFF's top functions by
instructions of their own when `--top N`.

    .venv/bin/python bench/request_cost_bench.py [--requests 300] [--rounds 3] [--top 25]

Needs valgrind (Debian's package). Each server takes a minute or two to start under it.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import aiohttp

sys.path.insert(0, str(Path(__file__).resolve().parent))
from live_support import (
    ADMIN_PASSWORD,
    NURSE,
    REPO,
    STAFF_PASSWORD,
    ProcfileServer,
    seed,
    sign_in,
)

from tools.devserver import free_port, local_env, wait_for_port

START_SECONDS = 600  # a server's start under valgrind (imports run some fifty times slower)


def callgrind(out_dir: Path, name: str) -> list[str]:
    """The valgrind command a server runs under: counting off until switched on."""
    return [
        "valgrind",
        "--tool=callgrind",
        "--trace-children=yes",
        "--instr-atstart=no",
        f"--callgrind-out-file={out_dir}/{name}.%p",
    ]


def control(*args: str) -> None:
    """callgrind_control for every process running under callgrind (only this bench's)."""
    subprocess.run(  # noqa: S603
        ["callgrind_control", *args],  # noqa: S607
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


async def requests(url: str, headers: dict[str, str], count: int) -> bytes:
    """count GETs one after another on one connection; the last body."""
    body = b""
    timeout = aiohttp.ClientTimeout(total=START_SECONDS)
    connector = aiohttp.TCPConnector(limit=1)
    async with aiohttp.ClientSession(timeout=timeout, connector=connector) as http:
        for _ in range(count):
            async with http.get(url, headers=headers) as response:
                body = await response.read()
                if response.status != 200:
                    raise SystemExit(f"GET {url} -> {response.status}: {body[:200]!r}")
    return body


def totals(out_dir: Path, name: str) -> int:
    """Instructions counted in every dump of one server's processes."""
    total = 0
    for dump in out_dir.glob(f"{name}.*"):
        for line in dump.read_text(errors="replace").splitlines():
            if line.startswith("totals:"):  # at the end ("summary:" at the top says 0)
                total += int(line.split()[1])
    return total


def measured(
    out_dir: Path, name: str, url: str, headers: dict[str, str], args: argparse.Namespace
) -> int:
    """Instructions per request of the server `name` (already started under callgrind): the
    median of --rounds rounds (what runs on timers, such as the live hub's session check, lands
    in some rounds and not others)."""
    asyncio.run(requests(url, headers, args.warmup))
    count: int = args.requests
    rounds: list[int] = []
    for _ in range(args.rounds):
        for stale in out_dir.glob(f"{name}.*"):  # earlier dumps
            stale.unlink()
        control("-z")
        control("-i", "on")
        started = time.monotonic()
        asyncio.run(requests(url, headers, count))
        control("-i", "off")
        control("-d")
        rounds.append(totals(out_dir, name) // count)
        print(
            f"  {name}: {count} requests in {time.monotonic() - started:.0f} s, "
            f"{rounds[-1] / 1000:,.0f}k instructions each",
            flush=True,
        )
    return sorted(rounds)[len(rounds) // 2]


def top(out_dir: Path, name: str, count: int) -> str:
    """callgrind_annotate's table of the functions with most instructions of their own."""
    dumps = sorted(str(p) for p in out_dir.glob(f"{name}.*") if p.stat().st_size > 1000)
    result = subprocess.run(  # noqa: S603
        ["callgrind_annotate", "--threshold=100", *dumps[:1]],  # noqa: S607
        capture_output=True,
        text=True,
        check=False,
    )
    rows = [line for line in result.stdout.splitlines() if re.match(r"\s*[\d,]+ \(", line)]
    return "\n".join(rows[:count])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=300, help="counted requests per server")
    parser.add_argument("--warmup", type=int, default=60, help="uncounted requests first")
    parser.add_argument("--rounds", type=int, default=3, help="counted rounds (the median)")
    parser.add_argument("--top", type=int, default=0, help="the BFF's top N functions")
    parser.add_argument("--keep", action="store_true", help="keep the dumps (path printed)")
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed (apt-get install valgrind)")
    home = Path(tempfile.mkdtemp(prefix="bff-request-cost-"))
    out_dir = home / "callgrind"
    out_dir.mkdir()
    bff: ProcfileServer | None = None
    bare: subprocess.Popen[bytes] | None = None
    try:
        env = local_env(home, admin_password=ADMIN_PASSWORD, job_workers="0")
        bff = ProcfileServer(
            env,
            home / "server.log",
            prefix=" ".join(callgrind(out_dir, "bff")),
            wait_seconds=START_SECONDS,
        )
        print("starting the BFF under callgrind (a minute or two)...", flush=True)
        bff.start()
        seed(bff.env)
        [token] = asyncio.run(sign_in(bff.base, NURSE, STAFF_PASSWORD, 1))
        headers = {"x-auth-token": token}
        me = f"{bff.base}/api/auth/me"
        document = asyncio.run(requests(me, headers, 1))
        ours = measured(out_dir, "bff", me, headers, args)
        table = top(out_dir, "bff", args.top) if args.top else ""
        bff.stop()
        bff = None

        body = home / "me.json"
        body.write_bytes(json.dumps(json.loads(document)).encode())
        port = free_port()
        print("starting bare Quart under callgrind...", flush=True)
        bare = subprocess.Popen(  # noqa: S603
            [
                *callgrind(out_dir, "bare"),
                sys.executable,
                str(REPO / "bench" / "bare_app.py"),
                "--port",
                str(port),
                "--body",
                str(body),
            ],
            cwd=REPO,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        wait_for_port(port, bare, START_SECONDS)
        theirs = measured(out_dir, "bare", f"http://127.0.0.1:{port}/json", {}, args)
    finally:
        if bff is not None:
            bff.stop()
        if bare is not None:
            bare.terminate()
            bare.wait(timeout=60)
        if args.keep:
            print(f"dumps kept in {out_dir}")
        else:
            shutil.rmtree(home, ignore_errors=True)
    print(f"GET /api/auth/me ({len(document):,} bytes), instructions per request:")
    print(f"  BFF from the Procfile  {ours / 1000:10,.0f}k")
    print(f"  bare Quart, same body  {theirs / 1000:10,.0f}k")
    ratio = theirs / ours
    verdict = "meets" if ratio >= 0.75 else "MISSES"
    print(f"  bare / BFF             {ratio:10.2f}   ({verdict} the 0.75 target)")
    if table:
        print(f"The BFF's top {args.top} functions by their own instructions:")
        print(table)


if __name__ == "__main__":
    main()
