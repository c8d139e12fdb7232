"""The "text" kind of file job (bff/jobs/service.py): each file's text read for search in a
worker process (bff/search/extract.py) and kept in `search_texts` page by page, each page in
pieces (bff/search/pieces.py), with each page's words and their boxes in `page_words` (the
viewer's text layer: bff/search/words.py), both replaced for each new content; `file:indexed`
tells the folder's room when it is searchable or why not.

The rows are written in bounded pieces of work (`prepare`), each in a background turn and a
transaction of its own: a 5,000-page PDF's text in one transaction held SQLite's one connection
for seconds (the health check answered 503, sign-ins waited). A file's rows are searched only
while their content is the file's current one, so the earlier content's rows, removed a piece
at a time first, are never found meanwhile, and the new content's rows may be found as they
come."""

from __future__ import annotations

from tortoise.backends.base.client import BaseDBAsyncClient

from bff import metrics
from bff.files.models import StoredFile
from bff.files.repository import scan_state_of
from bff.files.service import announce_in
from bff.jobs.models import KIND_TEXT
from bff.jobs.repository import Claimed
from bff.jobs.service import Kind, held_turn, register
from bff.live.events import FILE_INDEXED
from bff.search.extract import READ_EXTENSIONS, Extracted, TextOptions, extract_text
from bff.search.repository import insert_rows, remove_text, text_rows
from bff.search.words_repository import insert_words, remove_words
from config.settings import Settings


def wants(row: StoredFile) -> bool:
    """Files whose text is searched: not profile images; text, RTF, PDF, .docx and images."""
    if row.is_profile_image:
        return False
    return row.extension in READ_EXTENSIONS or row.content_type.startswith("text/")


def options(settings: Settings) -> TextOptions:
    """BFF_OCR_LANGUAGES and BFF_OCR_MAX_PAGES; one OCR run at most half a job's time."""
    return TextOptions(
        languages=settings.ocr_languages,
        max_ocr_pages=settings.ocr_max_pages,
        ocr_timeout=max(5.0, settings.job_seconds / 2),
    )


# One piece of the jobs' work on the index: rows removed (each one's text is read again by
# FTS5's delete), or rows written (at most WRITE_ROWS, at most WRITE_CHARS of text), at most
# this much. Measured on SQLite with both FTS5 indexes: 16 pieces of 16 KB written in 14 ms
# (p50), 160 ms at the worst of 160 such pieces of work; a 5,000-page PDF's short pages came
# 4,000 to a piece of work when only its text was counted (health answered 503 once).
REMOVE_ROWS = 16
WRITE_ROWS = 64
WRITE_CHARS = 256_000
REMOVE_WORD_ROWS = 64  # of page_words (no index reads them again): a piece of their removal


async def forget(conn: BaseDBAsyncClient, file_id: int, follows: bool) -> None:
    """A file's text of an earlier content: left to the job that follows (its rows are no longer
    searched, and it removes them a piece at a time), else removed now (the file is no longer
    read for search: rare)."""
    if not follows:
        await remove_text(file_id, client_conn=conn)
        await remove_words(file_id, client_conn=conn)


async def prepare(job: Claimed, result: Extracted) -> None:
    """Write the text and words that were read, replacing the file's earlier rows, a bounded
    piece of work at a time (each checks the job still holds the file's current content)."""
    while True:
        async with held_turn(job) as conn:
            if await remove_text(job.file_id, REMOVE_ROWS, client_conn=conn) < REMOVE_ROWS:
                break
    while True:
        async with held_turn(job) as conn:
            if await remove_words(job.file_id, REMOVE_WORD_ROWS, client_conn=conn) < (
                REMOVE_WORD_ROWS
            ):
                break
    pages = [""] * max((page for page, _ in result.pages), default=0)
    for page, text in result.pages:
        pages[page - 1] = text
    rows = text_rows(pages)
    start = 0
    while start < len(rows):
        end, size = start, 0
        while end < len(rows) and (
            end == start or (end - start < WRITE_ROWS and size + len(rows[end][2]) <= WRITE_CHARS)
        ):
            size += len(rows[end][2])
            end += 1
        async with held_turn(job) as conn:
            await insert_rows(job.file_id, job.version_id, rows[start:end], client_conn=conn)
        start = end
    for piece in _pieces(result.words):
        async with held_turn(job) as conn:
            await insert_words(job.file_id, job.version_id, piece, client_conn=conn)


def _pieces(rows: list[tuple[int, str]]) -> list[list[tuple[int, str]]]:
    """(page, words) rows in pieces of work of at most WRITE_ROWS rows and WRITE_CHARS (a
    longer page, up to 1 MB of JSON, a piece of its own)."""
    pieces: list[list[tuple[int, str]]] = []
    size = 0
    for row in rows:
        if not pieces or len(pieces[-1]) >= WRITE_ROWS or size + len(row[1]) > WRITE_CHARS:
            pieces.append([])
            size = 0
        pieces[-1].append(row)
        size += len(row[1])
    return pieces


async def store(conn: BaseDBAsyncClient, job: Claimed, result: Extracted, seconds: float) -> None:
    """The text is written (prepare): count it and tell the folder it is searchable."""
    ocr_seconds = min(result.ocr_seconds, seconds)
    metrics.text_pages("text", result.pages_read - result.ocr_pages, seconds - ocr_seconds)
    metrics.text_pages("ocr", result.ocr_pages, ocr_seconds)
    await _announce(conn, job, "ready")


async def failed(conn: BaseDBAsyncClient, job: Claimed, reason: str) -> None:
    """The file's text cannot be read: nothing of it is searched (the listing says why)."""
    await remove_text(job.file_id, client_conn=conn)
    await remove_words(job.file_id, client_conn=conn)
    await _announce(conn, job, "failed")


async def _announce(conn: BaseDBAsyncClient, job: Claimed, state: str) -> None:
    scan_state = await scan_state_of(conn, job.file_id)  # held: the admins' only
    announce_in(
        FILE_INDEXED,
        job.folder_id,
        job.container,
        job.folder,
        job.name,
        scan_state=scan_state,
        state=state,
    )


register(
    Kind(
        name=KIND_TEXT,
        wants=wants,
        work=extract_text,
        prepare=prepare,
        store=store,
        failed=failed,
        forget=forget,
        options=options,
        worker_modules=("bff.search.extract",),
    )
)
