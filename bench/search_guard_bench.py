"""The third review's search attack, replayed against a real server (issue 47, item 1).

Starts `python -m bff serve` (SQLite and local disk by default; --postgres: a throwaway database
on the local PostgreSQL), an assistant assigned to one folder, then prints, in one run:

1. jobs: twenty text files of 2 MB (the largest page a text file gives: one common word over
   and over) and a PDF of 5,000 text pages are uploaded and read by the job runner, while a
   prober asks /api/health and /api/auth/me every 20 ms: health's statuses (target: never 503)
   and /me's p50 / p99 / max;
2. idle: /me probed the same way with nothing else running (the baseline);
3. attack: the assistant searches the common word again and again (each search timed and its
   status counted: target within 2 s, or refused clearly) while /me is probed: /me's p50 / p99
   beside the baseline's (target p99 < 200 ms);
4. syntax: the review's 16 two-letter prefixes (target: 400 with a reason, or 200 within
   500 ms), and the most the server allows (4 prefixes of 3 letters) on this data.

Before the fix (the review, same volume): one 2 MB text's search 99 s and another user's sign-in
99.8 s; twenty of them held the database 12 minutes; the PDF's job made health answer 503.

With --looping SCALE, instead: the review's looping-prefix case. search_bench.py's records at
that fraction of the issue's volume (1: 30,000 texts of 1-20 KB in 5,000 folders, a nurse
assigned 300 of them) are written into the server's database first; then an admin's listing of
one folder (20 files) is timed every 20 ms with nothing else running, and again while the nurse
searches the costliest query the syntax allows (the four 3-letter prefixes most frequent in the
text: their matches cover the most postings) over and over, each search sent when the last one
answered: once with the shipped BFF_SEARCHES_PER_MINUTE (30), once with it lifted (10,000), in
one run, printed side by side (the review: 11 ms idle, 3.6 s median while looping).

    .venv/bin/python bench/search_guard_bench.py [--postgres] [--files 20] [--pdf-pages 5000]
        [--searches 20] [--seconds 10]
    .venv/bin/python bench/search_guard_bench.py --looping 0.2 [--postgres] [--seconds 20]
"""

from __future__ import annotations

import argparse
import asyncio
import io
import sys
import tempfile
import time
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiohttp
from fpdf import FPDF

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tools.devserver import ServerProcess, local_env, query_database, throwaway_postgres

ADMIN_PASSWORD = "bench-admin-password"
ASSISTANT_PASSWORD = "bench-assistant-password"
CONTAINER = "bench-ward"
FOLDER = "patient-1"
COMMON = "patient"
SIXTEEN_PREFIXES = "pa* co* re* di* tr* me* do* ta* al* am* ib* mo* in* he* as* st*"
ALLOWED_PREFIXES = "pat* rev* blo* con*"
BACKLOG = "SELECT COUNT(*) FROM file_jobs WHERE state IN ('pending', 'running')"
PROBE_EVERY = 0.02


def load() -> str:
    """The 1-minute load average."""
    return Path("/proc/loadavg").read_text().split()[0]


def percentile(samples: list[float], p: float) -> float:
    ordered = sorted(samples)
    return ordered[max(0, min(len(ordered) - 1, round(len(ordered) * p) - 1))]


def figures(samples: list[float]) -> str:
    if not samples:
        return "no samples"
    return (
        f"{len(samples):4} requests  p50 {percentile(samples, 0.5):7.1f} ms  "
        f"p99 {percentile(samples, 0.99):7.1f} ms  max {max(samples):7.1f} ms"
    )


def long_text(n: int) -> bytes:
    """2,000,000 characters: the common word, with one word of its own."""
    return (f"file{n} " + (COMMON + " ") * 249_990)[:2_000_000].encode()


def long_pdf(pages: int) -> bytes:
    pdf = FPDF()
    pdf.set_font("Helvetica", size=11)
    for n in range(pages):
        pdf.add_page()
        pdf.cell(text=f"Page {n + 1}: {COMMON} review of blood pressure, continues.")
    return bytes(pdf.output())


async def call(
    http: aiohttp.ClientSession, method: str, url: str, token: str | None = None, **kw: Any
) -> Any:
    headers = {"x-auth-token": token} if token else {}
    async with http.request(method, url, headers=headers, **kw) as response:
        body = await response.json(content_type=None)
        if response.status >= 400:
            raise SystemExit(f"{method} {url} -> {response.status} {body}")
        return body


async def sign_in(http: aiohttp.ClientSession, base: str, username: str, password: str) -> str:
    body = await call(
        http, "POST", f"{base}/api/auth/login", json={"username": username, "password": password}
    )
    return str(body["token"])


class Prober:
    """/api/auth/me (and optionally /api/health) every PROBE_EVERY seconds while it runs."""

    def __init__(self, http: aiohttp.ClientSession, base: str, token: str, health: bool) -> None:
        self.http, self.base, self.token, self.health = http, base, token, health
        self.me: list[float] = []
        self.health_statuses: Counter[int] = Counter()

    async def run(self) -> None:
        while True:
            started = time.perf_counter()
            async with self.http.get(
                f"{self.base}/api/auth/me", headers={"x-auth-token": self.token}
            ) as response:
                await response.read()
            self.me.append((time.perf_counter() - started) * 1000)
            if self.health:
                async with self.http.get(f"{self.base}/api/health") as response:
                    await response.read()
                    self.health_statuses[response.status] += 1
            await asyncio.sleep(max(0.0, PROBE_EVERY - (time.perf_counter() - started)))


@asynccontextmanager
async def probing(
    http: aiohttp.ClientSession, base: str, token: str, health: bool = False
) -> AsyncIterator[Prober]:
    prober = Prober(http, base, token, health)
    task = asyncio.create_task(prober.run())
    try:
        yield prober
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)


async def upload(
    http: aiohttp.ClientSession, base: str, token: str, name: str, data: bytes, kind: str
) -> None:
    form = aiohttp.FormData()
    form.add_field("file", io.BytesIO(data), filename=name, content_type=kind)
    async with http.post(
        f"{base}/api/blobs/{CONTAINER}/{FOLDER}", data=form, headers={"x-auth-token": token}
    ) as response:
        if response.status != 201:
            raise SystemExit(f"upload {name} -> {response.status} {await response.text()}")


async def search(
    http: aiohttp.ClientSession, base: str, token: str, q: str
) -> tuple[int, float, str]:
    """(status, ms, message or total) of one search."""
    started = time.perf_counter()
    async with http.get(
        f"{base}/api/search", params={"q": q}, headers={"x-auth-token": token}
    ) as response:
        body = await response.json(content_type=None)
    ms = (time.perf_counter() - started) * 1000
    said = body.get("message") if response.status != 200 else f"{body['total']} results"
    return response.status, ms, str(said)


async def setup(http: aiohttp.ClientSession, base: str) -> tuple[str, str]:
    admin = await sign_in(http, base, "admin", ADMIN_PASSWORD)
    await call(http, "POST", f"{base}/api/admin/containers", admin, json={"name": CONTAINER})
    await call(
        http,
        "POST",
        f"{base}/api/admin/containers/{CONTAINER}/folders",
        admin,
        json={"name": FOLDER},
    )
    await call(
        http,
        "POST",
        f"{base}/api/auth/register",
        admin,
        json={
            "name": "Bench Assistant",
            "username": "bench.assistant",
            "password": ASSISTANT_PASSWORD,
            "role": "assistant",
        },
    )
    users = await call(http, "GET", f"{base}/api/users", admin)
    assistant_id = next(u["id"] for u in users["users"] if u["username"] == "bench.assistant")
    await call(
        http, "POST", f"{base}/api/assignments/containers/{CONTAINER}/users/{assistant_id}", admin
    )
    await call(
        http,
        "POST",
        f"{base}/api/assignments/containers/{CONTAINER}/folders",
        admin,
        json={"userId": assistant_id, "folderNames": [FOLDER]},
    )
    assistant = await sign_in(http, base, "bench.assistant", ASSISTANT_PASSWORD)
    return admin, assistant


async def drained(database_url: str, seconds: float) -> int:
    deadline = time.monotonic() + seconds
    while True:
        left = int((await query_database(database_url, BACKLOG))[0][0])
        if not left or time.monotonic() > deadline:
            return left
        await asyncio.sleep(0.5)  # the jobs run in another process


async def bench(args: argparse.Namespace, root: Path, database_url: str | None) -> None:
    settings = {"admin_password": ADMIN_PASSWORD}
    if database_url:
        settings["database_url"] = database_url
    env = local_env(root, **settings)
    server = ServerProcess(env, log=root / "server.log")
    print(f"server: {'PostgreSQL' if database_url else 'SQLite'}, log {root / 'server.log'}")
    try:
        timeout = aiohttp.ClientTimeout(total=900)
        async with aiohttp.ClientSession(timeout=timeout) as http:
            base = server.base
            admin, assistant = await setup(http, base)

            started = time.monotonic()
            async with probing(http, base, admin, health=True) as jobs:
                for n in range(args.files):
                    await upload(http, base, admin, f"long-{n}.txt", long_text(n), "text/plain")
                if args.pdf_pages:
                    data = await asyncio.to_thread(long_pdf, args.pdf_pages)
                    await upload(http, base, admin, "long.pdf", data, "application/pdf")
                left = await drained(server.env["BFF_DATABASE_URL"], 1800)
            print(
                f"1. jobs ({args.files} x 2 MB texts, a {args.pdf_pages}-page PDF) read in "
                f"{time.monotonic() - started:.1f} s (left: {left}); health statuses "
                f"{dict(jobs.health_statuses)} (target: never 503)"
            )
            print(f"   /me while they ran:     {figures(jobs.me)}")

            async with probing(http, base, admin) as idle:
                await asyncio.sleep(args.seconds)
            print(f"2. /me, nothing running:   {figures(idle.me)}")

            statuses: Counter[str] = Counter()
            times: list[float] = []
            async with probing(http, base, admin) as attack:
                for _ in range(args.searches):
                    status, ms, said = await search(http, base, assistant, COMMON)
                    statuses[f"{status} {said}"] += 1
                    times.append(ms)
            print(
                f"3. {args.searches} searches of '{COMMON}' by the assistant: "
                f"{figures(times)}; {dict(statuses)} (target: within 2 s, or refused clearly)"
            )
            print(f"   /me during them:        {figures(attack.me)}  (target p99 < 200 ms)")
            ratio = percentile(attack.me, 0.99) / max(percentile(idle.me, 0.99), 0.001)
            print(f"   /me p99 during / idle:  {ratio:.2f}x")

            for label, q in (
                ("16 two-letter", SIXTEEN_PREFIXES),
                ("4 of 3 letters", ALLOWED_PREFIXES),
            ):
                status, ms, said = await search(http, base, assistant, q)
                print(f"4. {label} prefixes: {status} in {ms:.1f} ms: {said}")
    finally:
        server.stop()


# --- The looping-prefix case (--looping) ------------------------------------------------------

NURSE_PASSWORD = "bench-nurse-password"
LIFTED = "10000"  # searches per minute: the limit out of the way, the database's cost alone


async def seed(database_url: str, var: Path, scale: float) -> tuple[str, str, str]:
    """search_bench.py's records, written into the server's database before it starts; the
    admin and the nurse given passwords; (container, folder) of a folder of 20 files, and the
    costliest query the syntax allows on this text."""
    from search_bench import fill  # beside this file (the script's folder is on sys.path)

    from bff.auth.passwords import hash_password
    from bff.db import close_db, fetch, init_db, migrate
    from bff.search.query import MAX_PREFIXES, MIN_PREFIX
    from bff.users.models import User
    from config.settings import load_settings

    settings = load_settings(database_url=database_url, var_dir=var)
    await migrate(settings)
    await init_db(settings)
    try:
        started = time.monotonic()
        await fill(scale, 32)
        print(f"filled in {time.monotonic() - started:.0f} s", flush=True)
        for username, password in (("admin", ADMIN_PASSWORD), ("nurse", NURSE_PASSWORD)):
            hashed = await hash_password(password)
            await User.filter(username=username).update(password_hash=hashed)
        [row] = await fetch(
            "SELECT c.name AS container, d.name AS folder FROM folders d "
            "JOIN containers c ON c.id = d.container_id WHERE d.id = 1"
        )
        # The 3-letter starts covering the most words of the text (a sample of 500 pieces):
        # a prefix's cost is the postings of every word it starts.
        counts: Counter[str] = Counter()
        for sample in await fetch("SELECT text FROM search_texts ORDER BY id LIMIT 500"):
            for word in str(sample["text"]).lower().split():
                word = word.strip(".,")
                if len(word) >= MIN_PREFIX and word.isalpha():
                    counts[word[:MIN_PREFIX]] += 1
        query = " ".join(f"{start}*" for start, _ in counts.most_common(MAX_PREFIXES))
        return str(row["container"]), str(row["folder"]), query
    finally:
        await close_db()


async def listing_while(
    http: aiohttp.ClientSession,
    base: str,
    admin: str,
    where: str,
    seconds: float,
    nurse: str | None,
    query: str,
) -> tuple[list[float], Counter[int], list[float]]:
    """The admin's listing of `where` timed every PROBE_EVERY for `seconds`, while the nurse
    (if given) searches `query` again and again: (listing ms, search statuses, search ms)."""
    listing: list[float] = []
    statuses: Counter[int] = Counter()
    searched: list[float] = []

    async def list_folder() -> None:
        while True:
            started = time.perf_counter()
            async with http.get(f"{base}/api/blobs/{where}", headers={"x-auth-token": admin}) as r:
                await r.read()
                if r.status != 200:
                    raise SystemExit(f"listing -> {r.status}")
            listing.append((time.perf_counter() - started) * 1000)
            await asyncio.sleep(max(0.0, PROBE_EVERY - (time.perf_counter() - started)))

    async def loop_searches(token: str) -> None:
        while True:
            status, ms, _ = await search(http, base, token, query)
            statuses[status] += 1
            if status == 200:
                searched.append(ms)

    tasks = [asyncio.create_task(list_folder())]
    if nurse is not None:
        tasks.append(asyncio.create_task(loop_searches(nurse)))
    await asyncio.sleep(seconds)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    return listing, statuses, searched


async def looping(args: argparse.Namespace, root: Path, database_url: str | None) -> None:
    url = database_url or f"sqlite://{root}/bff.sqlite3"
    container, folder, query = await seed(url, root / "var", args.looping)
    where = f"{container}/{folder}"
    print(f"the nurse's query: {query!r}; the admin lists {where}")
    rows = []
    for per_minute in ("30", LIFTED):
        settings = {
            "admin_password": ADMIN_PASSWORD,
            "database_url": url,
            "searches_per_minute": per_minute,
            "job_workers": "0",
        }
        env = local_env(root, **settings)
        server = ServerProcess(env, log=root / f"server-{per_minute}.log")
        try:
            timeout = aiohttp.ClientTimeout(total=120)
            async with aiohttp.ClientSession(timeout=timeout) as http:
                base = server.base
                admin = await sign_in(http, base, "admin", ADMIN_PASSWORD)
                nurse = await sign_in(http, base, "nurse", NURSE_PASSWORD)
                status, ms, said = await search(http, base, nurse, query)  # warm, and counted
                print(f"one search of it: {status} in {ms:.0f} ms ({said})", flush=True)
                idle, _, _ = await listing_while(http, base, admin, where, args.seconds, None, "")
                looped, statuses, times = await listing_while(
                    http, base, admin, where, args.seconds, nurse, query
                )
            rows.append((per_minute, idle, looped, statuses, times))
        finally:
            server.stop()
    print(
        f"\nthe admin's listing of one folder, p50 / p99 ms, {args.seconds:g} s each "
        f"(load {load()}):"
    )
    for per_minute, idle, looped, statuses, times in rows:
        answered = f"{percentile(times, 0.5):.0f} ms p50" if times else "none answered"
        print(
            f"  {per_minute:>5} searches a minute: idle {percentile(idle, 0.5):6.1f} / "
            f"{percentile(idle, 0.99):6.1f}   while the nurse loops {percentile(looped, 0.5):6.1f} "
            f"/ {percentile(looped, 0.99):6.1f}   ({len(idle)} and {len(looped)} listings; the "
            f"nurse's searches {dict(statuses)}, {answered})"
        )


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--postgres", action="store_true")
    parser.add_argument("--files", type=int, default=20)
    parser.add_argument("--pdf-pages", type=int, default=5000)
    parser.add_argument("--searches", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument(
        "--looping",
        type=float,
        metavar="SCALE",
        help="the looping-prefix case instead, on search_bench.py's records at this scale",
    )
    args = parser.parse_args()
    print(f"load average at start: {load()}")
    run = bench if args.looping is None else looping
    with tempfile.TemporaryDirectory(prefix="bff-search-guard-") as folder:
        root = Path(folder)
        if args.postgres:
            async with throwaway_postgres("bff_search_guard") as url:
                await run(args, root, url)
        else:
            await run(args, root, None)


if __name__ == "__main__":
    asyncio.run(main())
