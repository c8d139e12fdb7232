"""Search benchmark: the index against scanning the text, at the issue's volume.

Builds a throwaway database (SQLite file by default; with --postgres a database on the local
PostgreSQL at 127.0.0.1:5432, created and dropped here), migrated as the server does, and fills
it in bulk (rows written directly, not uploaded: extraction is measured by its own bench):
100,000 files in 5,000 folders, of which 30,000 have a text of 1-20 KB drawn from a medical-like
vocabulary (Zipf-distributed words, common phrases, a rare word in 20 documents). Then prints:

- the index's size beside the text's (SQLite: FTS5's tables; PostgreSQL: the tsvector column,
  its GIN index and the name indexes), and how long filling the index took;
- search p50/p95 through bff/search/repository.py (what GET /api/search runs, minus HTTP) for a
  member of staff with 300 folders and for an admin: a rare word, a common word, a phrase, a
  prefix; targets p95 < 50 ms for staff and < 150 ms for an admin's common word;
- side by side, the same queries answered by scanning search_texts (LIKE / ILIKE), and the ratio.

Usage: .venv/bin/python bench/search_bench.py [--postgres] [--scale 0.1] [--runs 20]
(--scale 1 is the issue's volume; smaller scales every count down for a quick run).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tortoise import connections

from bff.auth.sessions import Principal
from bff.db import close_db, dialect, fetch, init_db, migrate
from bff.search import repository
from bff.search.query import Query, parse
from bff.search.repository import text_rows
from bff.users.models import Role, User
from config.settings import load_settings
from tools.devserver import create_postgres_database, throwaway_postgres

FILES = 100_000
FOLDERS = 5_000
TEXTS = 30_000
STAFF_FOLDERS = 300
RARE = "pheochromocytoma"
RARE_DOCUMENTS = 20
STAFF_TARGET_MS = 50.0
ADMIN_TARGET_MS = 150.0

MEDICAL = """patient history examination diagnosis treatment medication dose daily tablet
allergy penicillin amoxicillin ibuprofen paracetamol morphine insulin metformin warfarin
heparin aspirin statin antibiotic infection fever cough dyspnoea chest pain abdominal nausea
vomiting diarrhoea constipation headache dizziness fatigue weakness oedema swelling rash
wound dressing suture fracture cast surgery anaesthesia recovery discharge admission ward
nurse doctor consultant referral clinic appointment follow review result laboratory blood
count haemoglobin platelet glucose creatinine sodium potassium urea liver renal cardiac
cardiology cardiomyopathy cardiovascular cardiogram electrocardiogram echocardiogram
arrhythmia fibrillation hypertension hypotension tachycardia bradycardia stroke diabetes
asthma copd pneumonia bronchitis sepsis urinary catheter cannula oxygen saturation
respiratory pulse temperature weight height bmi scan xray ultrasound mri ct biopsy
histology oncology tumour chemotherapy radiotherapy palliative physiotherapy mobility fall
risk assessment pressure ulcer skin integrity nutrition fluid intake output balance pain
score analgesia sedation consent capacity family carer social worker plan goals
observation stable improving deteriorating monitoring escalation resuscitation allergic
reaction anaphylaxis adrenaline steroid prednisolone inhaler nebuliser salbutamol
""".split()  # noqa: SIM905 - a word list reads better as text
FILLER = """the of and to in a is was with for on at by as from this that be are were has have
not no left right both noted seen given reports denies states continues advised remains
""".split()  # noqa: SIM905
PHRASES = ["blood pressure", "heart rate", "past medical history", "no known allergies"]
SYLLABLES = "ka lo mi ne ra su ti vo be da fe gu ho ji ku la mo pe ri sa to vu".split()  # noqa: SIM905


def vocabulary(rng: random.Random) -> tuple[list[str], list[float]]:
    """Words by rank with cumulative Zipf weights: the medical list, filler, phrases and a long
    tail of made-up terms (drug and place names): a vocabulary of tens of thousands of words."""
    tail = {"".join(rng.choice(SYLLABLES) for _ in range(rng.randint(3, 5))) for _ in range(30_000)}
    words = ["patient", *FILLER, *PHRASES, *MEDICAL, *sorted(tail)]
    rng.shuffle(words[len(FILLER) + 1 :])
    total, cumulative = 0.0, []
    for rank in range(len(words)):
        total += 1.0 / (rank + 1) ** 0.9
        cumulative.append(total)
    return words, cumulative


def document(rng: random.Random, words: list[str], weights: list[float]) -> str:
    """A text of 1-20 KB: sentences of Zipf-drawn words."""
    target = rng.randint(1_000, 20_000)
    out: list[str] = []
    size = 0
    while size < target:
        sentence = rng.choices(words, cum_weights=weights, k=rng.randint(6, 18))
        line = " ".join(sentence).capitalize() + ". "
        out.append(line)
        size += len(line)
    return "".join(out)


async def many(sql: str, rows: list[tuple[Any, ...]]) -> None:
    conn = connections.get("default")
    if dialect(conn) == "postgres":
        parts = sql.split("?")
        sql = "".join(f"{p}${n}" for n, p in enumerate(parts[:-1], 1)) + parts[-1]
    await conn.execute_many(sql, rows)


async def fill(scale: float, seed: int) -> tuple[Principal, Principal, float, int]:
    """The rows; the staff member and admin; seconds spent writing the texts; text bytes."""
    rng = random.Random(seed)
    folders, files, texts = (max(1, int(n * scale)) for n in (FOLDERS, FILES, TEXTS))
    staff_folders = min(folders, max(1, int(STAFF_FOLDERS * min(1.0, scale * 10))))
    now = datetime.now(UTC)
    await many(
        "INSERT INTO containers (id, name, sort_prefix, sort_number, created_at) "
        "VALUES (?, ?, ?, ?, ?)",
        [(c, f"ward-{c}", "ward-", c, now) for c in range(1, 11)],
    )
    await many(
        "INSERT INTO folders (id, container_id, name, sort_prefix, sort_number, created_at, "
        "patient_search) VALUES (?, ?, ?, ?, ?, ?, ?)",
        [
            (f, 1 + f % 10, f"{rng.choice(SYLLABLES).title()}son_{f}", "p", f, now, "")
            for f in range(1, folders + 1)
        ],
    )
    kinds = [("pdf", "application/pdf"), ("jpg", "image/jpeg"), ("txt", "text/plain")]
    rows = []
    for i in range(1, files + 1):
        ext, ctype = kinds[i % 3]
        rows.append(
            (
                i,
                1 + i % folders,
                f"document-{i}.{ext}",
                ctype,
                1000,
                now - timedelta(minutes=rng.randint(0, 3 * 365 * 24 * 60)),
                ext,
                False,
                False,
                f"v{i}",
                "",
                "",
            )
        )
    await many(
        "INSERT INTO files (id, folder_id, name, content_type, size, last_modified, extension, "
        "is_profile_image, converted_from_rtf, version_id, uploaded_by_name, uploaded_by_role) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        rows,
    )
    admin = await User.create(name="Admin", username="admin", role=Role.ADMIN, password_hash="x")
    nurse = await User.create(name="Nurse", username="nurse", role=Role.NURSE, password_hash="x")
    chosen = rng.sample(range(1, folders + 1), staff_folders)
    await many(
        "INSERT INTO folder_assignments (user_id, folder_id, created_at) VALUES (?, ?, ?)",
        [(nurse.id, f, now) for f in chosen],
    )
    words, weights = vocabulary(rng)
    text_files = rng.sample(range(1, files + 1), texts)
    rare = set(rng.sample(text_files, min(RARE_DOCUMENTS, texts)))
    written = 0
    seconds = 0.0
    batch: list[tuple[Any, ...]] = []
    for file_id in text_files:
        text = document(rng, words, weights)
        if file_id in rare:
            text += f" Suspected {RARE}. "
        written += len(text.encode())
        # As the text jobs write them: a page longer than a piece in pieces.
        batch.extend(
            (file_id, f"v{file_id}", page, piece, part) for page, piece, part in text_rows([text])
        )
        if len(batch) == 500 or file_id == text_files[-1]:
            started = time.perf_counter()
            await many(
                "INSERT INTO search_texts (file_id, version_id, page, piece, text) "
                "VALUES (?, ?, ?, ?, ?)",
                batch,
            )
            seconds += time.perf_counter() - started
            batch = []
    # PostgreSQL: VACUUM also merges the GIN indexes' pending lists, as autovacuum would soon.
    await fetch("VACUUM ANALYZE" if dialect() == "postgres" else "ANALYZE")
    staff = Principal(nurse.id, "Nurse", "nurse", Role.NURSE, "bench")
    boss = Principal(admin.id, "Admin", "admin", Role.ADMIN, "bench")
    print(
        f"filled: {files:,} files in {folders:,} folders, {texts:,} texts "
        f"({written / 1e6:.0f} MB), staff assigned {staff_folders} folders",
        flush=True,
    )
    return staff, boss, seconds, written


async def sizes(text_bytes: int) -> None:
    """The index's size beside the text's."""
    if dialect() == "postgres":
        rows = await fetch(
            "SELECT SUM(pg_column_size(tsv))::bigint AS vector, "
            "pg_relation_size('search_texts_tsv') AS gin, "
            "pg_relation_size('files_name_search') + pg_relation_size('folders_name_search') "
            "AS names FROM search_texts"
        )
        vector, gin, names = (int(rows[0][k]) for k in ("vector", "gin", "names"))
        index = vector + gin + names
        detail = f"tsvector column {vector / 1e6:.0f} MB, GIN {gin / 1e6:.0f} MB"
        detail += f", name indexes {names / 1e6:.1f} MB"
    else:
        rows = await fetch(
            "SELECT name, SUM(pgsize) AS size FROM dbstat WHERE name LIKE 'search_fts%' "
            "OR name LIKE 'search_names%' OR name LIKE 'search_folders%' GROUP BY name"
        )
        by = {str(r["name"]): int(r["size"]) for r in rows}
        index = sum(by.values())
        plain = sum(v for k, v in by.items() if k.startswith("search_fts_") and "_en" not in k)
        stemmed = sum(v for k, v in by.items() if k.startswith("search_fts_en"))
        detail = f"FTS5 words {plain / 1e6:.0f} MB, stems {stemmed / 1e6:.0f} MB"
        detail += f", names {(index - plain - stemmed) / 1e6:.1f} MB"
    print(
        f"index size: {index / 1e6:.0f} MB for {text_bytes / 1e6:.0f} MB of text "
        f"({index / text_bytes:.2f}x; {detail})",
        flush=True,
    )


def percentile(samples: list[float], p: float) -> float:
    ordered = sorted(samples)
    return ordered[max(0, min(len(ordered) - 1, round(len(ordered) * p) - 1))]


async def timed(call: Callable[[], Awaitable[Any]], runs: int) -> list[float]:
    started = time.perf_counter()
    await call()  # warm the cache
    first = (time.perf_counter() - started) * 1000
    if first > 2000:
        return [first]  # a scan of every text: once is enough to compare
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        await call()
        samples.append((time.perf_counter() - started) * 1000)
    return samples


QUERIES = [
    ("rare word", RARE, f"%{RARE}%"),
    ("common word", "patient", "%patient%"),
    ("phrase", '"blood pressure"', "%blood pressure%"),
    ("prefix", "cardio*", "%cardio%"),
    # The most prefixes a search may have, each as short as allowed (the scan: the first only).
    ("4 prefixes", "car* pat* blo* pre*", "%car%"),
]


async def scan(principal: Principal, pattern: str) -> None:
    """The same question answered without the index: the first 20 files whose text holds the
    pattern (newest first) and how many there are, in the caller's scope."""
    like = "ILIKE" if dialect() == "postgres" else "LIKE"  # SQLite's LIKE ignores ASCII case
    scope = (
        ""
        if principal.is_admin
        else ("AND f.folder_id IN (SELECT folder_id FROM folder_assignments WHERE user_id = ?)")
    )
    params: list[Any] = [pattern] + ([] if principal.is_admin else [principal.user_id])
    await fetch(
        f"SELECT COUNT(DISTINCT t.file_id) AS n FROM search_texts t JOIN files f "
        f"ON f.id = t.file_id WHERE t.text {like} ? {scope}",
        *params,
    )
    await fetch(
        f"SELECT DISTINCT f.id, f.last_modified FROM search_texts t JOIN files f "
        f"ON f.id = t.file_id WHERE t.text {like} ? {scope} ORDER BY f.last_modified DESC "
        "LIMIT 20",
        *params,
    )


async def measure(staff: Principal, admin: Principal, runs: int, database_url: str) -> None:
    """Every indexed search first, then the scans: a scan reads all 315 MB of text, and run
    between two queries' searches it pushed their pages out of the database's cache (the first
    figures measured the index partly cold that way)."""
    filters = repository.Filters()
    # The server's way of reading (its own connections), with a budget that never ends a run.
    readers = repository.Readers(database_url)

    async def search(p: Principal, qq: Query) -> repository.Found:
        async with readers.reading(600) as reading:
            return await repository.search(reading, p, qq, filters, None, 20)

    try:
        rows = []
        for who, principal, target in (
            ("staff (300 folders)", staff, STAFF_TARGET_MS),
            ("admin", admin, ADMIN_TARGET_MS),
        ):
            for label, q, pattern in QUERIES:
                query = parse(q)
                found = await search(principal, query)

                async def indexed_search(p: Principal = principal, qq: Query = query) -> None:
                    await search(p, qq)

                indexed = await timed(indexed_search, runs)
                rows.append((who, principal, target, label, pattern, found, indexed))
        for who, principal, target, label, pattern, found, indexed in rows:

            async def scanned_search(p: Principal = principal, pat: str = pattern) -> None:
                await scan(p, pat)

            scanned = await timed(scanned_search, max(3, runs // 4))
            p50, p95 = percentile(indexed, 0.5), percentile(indexed, 0.95)
            s50 = percentile(scanned, 0.5)
            mark = "meets" if p95 < target else "MISSES"
            print(
                f"{who:20} {label:12} total {found.total:>6}{'+' if found.capped else ' '} "
                f"index p50 {p50:7.1f} ms p95 {p95:7.1f} ms [{mark} < {target:.0f}]   "
                f"scan p50 {s50:8.1f} ms   scan/index {s50 / max(p50, 0.01):6.1f}x",
                flush=True,
            )
    finally:
        await readers.aclose()


async def filled() -> tuple[Principal, Principal, int] | None:
    """The staff member, the admin and the text's size of a database filled before, if it is."""
    users = {u.username: u for u in await User.filter(username__in=["nurse", "admin"])}
    if len(users) < 2:
        return None
    if dialect() == "postgres":
        rows = await fetch("SELECT SUM(octet_length(text)) AS n FROM search_texts")
    else:
        rows = await fetch("SELECT SUM(LENGTH(CAST(text AS BLOB))) AS n FROM search_texts")
    nurse, admin = users["nurse"], users["admin"]
    return (
        Principal(nurse.id, "Nurse", "nurse", Role.NURSE, "bench"),
        Principal(admin.id, "Admin", "admin", Role.ADMIN, "bench"),
        int(rows[0]["n"] or 0),
    )


async def run(database_url: str, scale: float, runs: int, seed: int, var: Path) -> None:
    settings = load_settings(database_url=database_url, var_dir=var)
    await migrate(settings)
    await init_db(settings)
    try:
        before = await filled()
        if before is not None:
            staff, admin, text_bytes = before
            print(f"reusing the filled database ({text_bytes / 1e6:.0f} MB of text)", flush=True)
        else:
            started = time.perf_counter()
            staff, admin, seconds, text_bytes = await fill(scale, seed)
            print(
                f"fill took {time.perf_counter() - started:.0f} s; writing the texts with their "
                f"index {seconds:.1f} s ({text_bytes / 1e6 / max(seconds, 0.001):.1f} MB/s)",
                flush=True,
            )
        await sizes(text_bytes)
        await measure(staff, admin, runs, database_url)
    finally:
        await close_db()


async def bench(args: argparse.Namespace, kept: str | None, tmp: Path) -> None:
    """Fill (or reuse) a database and measure."""
    if args.keep is not None:
        url = await create_postgres_database(args.keep) if args.postgres else f"sqlite://{kept}"
        await run(url, args.scale, args.runs, args.seed, tmp)
    elif args.postgres:
        async with throwaway_postgres("search_bench") as url:
            await run(url, args.scale, args.runs, args.seed, tmp)
    else:
        await run(f"sqlite://{tmp}/bench.sqlite3", args.scale, args.runs, args.seed, tmp)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--postgres", action="store_true", help="PostgreSQL instead of SQLite")
    parser.add_argument("--scale", type=float, default=1.0, help="fraction of the issue's volume")
    parser.add_argument("--runs", type=int, default=20, help="timed searches per query")
    parser.add_argument("--seed", type=int, default=32)
    parser.add_argument(
        "--keep",
        help="a database filled once and reused by later runs (a large fill takes minutes): "
        "SQLite a file's path; PostgreSQL a database name (created, never dropped: drop it "
        "yourself)",
    )
    args = parser.parse_args()
    print(f"search bench on {'PostgreSQL' if args.postgres else 'SQLite'}, scale {args.scale}")
    kept = os.path.abspath(args.keep) if args.keep and not args.postgres else None
    with tempfile.TemporaryDirectory(prefix="search-bench-") as tmp:
        asyncio.run(bench(args, kept, Path(tmp)))


if __name__ == "__main__":
    main()
