"""How fast the background jobs read files' text (bff/jobs/, bff/search/extract.py), and how
fast a backlog drains, on a throwaway SQLite database and local storage.

Makes text documents of 1-20 KB from a medical-like vocabulary, text PDFs (fpdf2) and scanned
pages (Pillow, image-only PDFs), stores them as the app does (bff/files/storing.store_file:
each records its job), then drains the backlog with `run_due` and BFF_JOB_WORKERS workers,
timing each kind apart. Prints documents or pages per second.

    .venv/bin/python bench/text_jobs_bench.py --texts 300 --pdfs 50 --scans 10 --workers 2
"""

from __future__ import annotations

import argparse
import asyncio
import io
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from fpdf import FPDF
from PIL import Image, ImageDraw, ImageFont

from bff.audit.service import Actor, configure_audit
from bff.audit.service import flush as flush_audit
from bff.containers.repository import ensure_container, ensure_folder
from bff.db import close_db, init_db, migrate
from bff.files.storing import store_file
from bff.jobs import repository, service
from bff.search.models import SearchText
from config.settings import Settings, load_settings
from storage import open_storage
from storage.base import Storage

WORDS = [
    "patient",
    "allergy",
    "penicillin",
    "amoxicillin",
    "discharge",
    "referral",
    "asthma",
    "diabetes",
    "insulin",
    "warfarin",
    "hypertension",
    "fracture",
    "x-ray",
    "ward",
    "round",
    "nurse",
    "doctor",
    "dose",
    "tablet",
    "mg",
    "daily",
    "review",
    "blood",
    "pressure",
    "glucose",
    "renal",
    "hepatic",
    "cardiology",
    "oncology",
    "follow-up",
    "clinic",
    "letter",
    "summary",
]


def prose(rng: random.Random, size: int) -> str:
    words: list[str] = []
    length = 0
    while length < size:
        word = rng.choice(WORDS)
        words.append(word)
        length += len(word) + 1
    return " ".join(words)


def text_pdf(rng: random.Random, pages: int) -> bytes:
    pdf = FPDF()
    pdf.set_font("Helvetica", size=11)
    for _ in range(pages):
        pdf.add_page()
        pdf.multi_cell(w=0, text=prose(rng, 2500))
    return bytes(pdf.output())


def scan(rng: random.Random) -> bytes:
    """An A4 page at 150 dpi with ten lines of text, as an image-only PDF."""
    image = Image.new("L", (1240, 1754), 255)
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=28)
    for line in range(10):
        draw.text((80, 120 + line * 60), prose(rng, 60), fill=0, font=font)
    out = io.BytesIO()
    image.convert("RGB").save(out, format="PDF", resolution=150)
    return out.getvalue()


async def drain(settings: Settings, storage: Storage, label: str, units: int, unit: str) -> None:
    pool = service.job_pool(settings)
    started = time.perf_counter()
    try:
        await service.run_due(storage, settings, pool, "bench:1")
    finally:
        await pool.close()
    seconds = time.perf_counter() - started
    print(f"{label}: {units} {unit} in {seconds:.1f} s = {units / seconds:.1f} {unit}/s")


async def main(args: argparse.Namespace) -> None:
    root = Path(tempfile.mkdtemp(prefix="bff-text-bench-"))
    settings = load_settings(
        database_url=f"sqlite://{root}/bench.sqlite3",
        storage_url=f"file://{root}/storage",
        var_dir=root,
        job_workers=args.workers,
    )
    rng = random.Random(32)
    try:
        await migrate(settings)
        await init_db(settings)
        configure_audit(settings)
        async with open_storage(settings.storage_url) as storage:
            container, _ = await ensure_container("ward-a")
            folder, _ = await ensure_folder(container, "patient-1")
            await folder.fetch_related("container")
            actor = Actor(user_id=None, name="bench", role="admin", client_address="")
            batches = [
                ("Text documents (1-20 KB)", "documents", args.texts, "txt"),
                ("Text PDF pages", "pages", args.pdfs, "pdf"),
                ("Scanned pages (OCR)", "pages", args.scans, "scan"),
            ]
            for label, unit, count, what in batches:
                if not count:
                    continue
                units = 0
                for n in range(count):
                    if what == "txt":
                        data, name = prose(rng, rng.randint(1024, 20 * 1024)).encode(), f"n{n}.txt"
                        units += 1
                    elif what == "pdf":
                        data, name = text_pdf(rng, 2), f"l{n}.pdf"
                        units += 2
                    else:
                        data, name = scan(rng), f"s{n}.pdf"
                        units += 1
                    await store_file(folder, name, data, storage=storage, actor=actor)
                backlog = await repository.backlog()
                print(f"{label}: backlog {backlog}")
                await drain(settings, storage, label, units, unit)
            print(f"Pages of text kept: {await SearchText.all().count()}")
            await flush_audit()
    finally:
        await close_db()
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--texts", type=int, default=300)
    parser.add_argument("--pdfs", type=int, default=50, help="PDFs of 2 pages each")
    parser.add_argument("--scans", type=int, default=10)
    parser.add_argument("--workers", type=int, default=2)
    asyncio.run(main(parser.parse_args()))
