"""The viewer's worst find beside a sign-in, against a real server (issue 50).

Starts `python -m bff serve` (SQLite and local disk), an admin and an assistant assigned to one
folder, uploads a two-page letter and waits for its text job, then writes the review's flood
after its pages into page_words, as someone who can edit the database would (pages of 1 MB,
the most a page's words may be: each "word" a..a of 100 tokens). Then, in one run, it prints:

1. idle: the admin's sign-in (POST /api/auth/login, a password hash and a session) timed again
   and again with nothing else running (the baseline);
2. finds: the same while the assistant and the admin each find the review's query in the
   flooded file, back to back (each find timed, its status counted: every page matched in full,
   so each runs to its deadline, FIND_SECONDS, and answers `partial`); sign-in p50 / p99 / max
   beside the baseline's, as a ratio.

Before the finds matched in a worker process of their own (they matched in a thread of the
server's process, holding its GIL), two such finds made one sign-in 0.12 s -> 1.6 s.

    .venv/bin/python bench/find_bench.py [--pages 12] [--seconds 15]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sqlite3
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from urllib.parse import urlencode

import aiohttp
from fpdf import FPDF

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from search_guard_bench import (  # beside this file (the script's folder is on sys.path)
    ADMIN_PASSWORD,
    CONTAINER,
    FOLDER,
    call,
    drained,
    figures,
    load,
    percentile,
    setup,
    upload,
)

from bff.search.words import MAX_PAGE_JSON, encoded
from tools.devserver import ServerProcess, local_env

NAME = "letter.pdf"
FLOOD_WORD = ".".join(["a"] * 100)
# Every phrase on every page, then a word on none, last: each page matched in full.
FLOOD_QUERY = " ".join(f'"{" ".join(["a"] * n)}"' for n in range(2, 12)) + " zzz"
SIGN_IN_EVERY = 0.2


def letter() -> bytes:
    pdf = FPDF()
    pdf.set_font("Helvetica", size=11)
    for text in ("Discharge letter mentions amoxicillin.", "Second page: asthma."):
        pdf.add_page()
        pdf.cell(text=text)
    return bytes(pdf.output())


def flood(database: str, pages: int) -> None:
    """The flood's pages after the letter's own, for the letter's stored content."""
    page = encoded([(FLOOD_WORD, 0, 0, 10, 10)] * (MAX_PAGE_JSON // len(FLOOD_WORD)))
    with contextlib.closing(sqlite3.connect(database)) as db, db:
        file_id, version_id = db.execute(
            "SELECT id, COALESCE(version_id, '') FROM files WHERE name = ?", (NAME,)
        ).fetchone()
        db.executemany(
            "INSERT INTO page_words (file_id, version_id, page, words) VALUES (?, ?, ?, ?)",
            [(file_id, version_id, n, page) for n in range(3, 3 + pages)],
        )


async def sign_ins(http: aiohttp.ClientSession, base: str, stop: asyncio.Event) -> list[float]:
    """The admin's sign-in, ms each, every SIGN_IN_EVERY seconds until stop."""
    times: list[float] = []
    while not stop.is_set():
        started = time.perf_counter()
        await call(
            http,
            "POST",
            f"{base}/api/auth/login",
            json={"username": "admin", "password": ADMIN_PASSWORD},
        )
        times.append((time.perf_counter() - started) * 1000)
        await asyncio.sleep(max(0.0, SIGN_IN_EVERY - (time.perf_counter() - started)))
    return times


async def finds(
    http: aiohttp.ClientSession, base: str, token: str, stop: asyncio.Event
) -> tuple[list[float], Counter[str]]:
    """The flood's query found in the letter, back to back until stop: (ms, statuses)."""
    where = f"{base}/api/blobs/{CONTAINER}/{FOLDER}/{NAME}/viewer"
    opened = await call(http, "GET", where, token)
    url = f"{base}{opened['findUrl']}&{urlencode({'q': FLOOD_QUERY})}"
    times: list[float] = []
    statuses: Counter[str] = Counter()
    while not stop.is_set():
        started = time.perf_counter()
        async with http.get(url) as response:
            body = await response.json(content_type=None)
        times.append((time.perf_counter() - started) * 1000)
        said = f"partial={body['partial']}" if response.status == 200 else body.get("message")
        statuses[f"{response.status} {said}"] += 1
        if response.status == 429:
            await asyncio.sleep(float(response.headers.get("Retry-After", "1")))
    return times, statuses


async def bench(args: argparse.Namespace, root: Path) -> None:
    env = local_env(root, admin_password=ADMIN_PASSWORD)
    server = ServerProcess(env, log=root / "server.log")
    database = env["BFF_DATABASE_URL"].removeprefix("sqlite://")
    try:
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=120)) as http:
            base = server.base
            admin, assistant = await setup(http, base)
            await upload(http, base, admin, NAME, letter(), "application/pdf")
            if await drained(env["BFF_DATABASE_URL"], 120):
                raise SystemExit("the letter's text job did not finish")
            await asyncio.to_thread(flood, database, args.pages)

            stop = asyncio.Event()
            idle_task = asyncio.create_task(sign_ins(http, base, stop))
            await asyncio.sleep(args.seconds)
            stop.set()
            idle = await idle_task

            stop = asyncio.Event()
            tasks = [
                asyncio.create_task(finds(http, base, token, stop)) for token in (assistant, admin)
            ]
            await asyncio.sleep(1)  # the finds' worker started, both finding
            during_task = asyncio.create_task(sign_ins(http, base, stop))
            await asyncio.sleep(args.seconds)
            stop.set()
            during = await during_task
            found = await asyncio.gather(*tasks)
        times = [ms for each, _ in found for ms in each]
        statuses = sum((counted for _, counted in found), Counter[str]())
        print(f"{args.pages} flood pages of 1 MB after the letter's 2; load {load()}")
        print(f"1. sign-in, nothing else running: {figures(idle)}")
        print(f"2. sign-in while two users find:  {figures(during)}")
        print(f"   their finds:                   {figures(times)}  {dict(statuses)}")
        for label, p in (("p50", 0.5), ("p99", 0.99)):
            ratio = percentile(during, p) / max(percentile(idle, p), 0.001)
            print(f"   sign-in {label} during / idle:    {ratio:.2f}x")
    finally:
        server.stop()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=12)
    parser.add_argument("--seconds", type=float, default=15.0)
    args = parser.parse_args()
    print(f"load average at start: {load()}")
    with tempfile.TemporaryDirectory(prefix="bff-find-") as folder:
        await bench(args, Path(folder))


if __name__ == "__main__":
    asyncio.run(main())
