"""The "text" kind of file job (bff/jobs/service.py): each file's text read for search in a
worker process (bff/search/extract.py) and kept page by page in `search_texts`, replaced whole
for each new content; `file:indexed` tells the folder's room when it is searchable or why not."""

from __future__ import annotations

from tortoise.backends.base.client import BaseDBAsyncClient

from bff import metrics
from bff.files.models import StoredFile
from bff.files.service import announce_in
from bff.jobs.models import KIND_TEXT
from bff.jobs.repository import Claimed
from bff.jobs.service import Kind, register
from bff.live.events import FILE_INDEXED
from bff.search.extract import READ_EXTENSIONS, Extracted, TextOptions, extract_text
from bff.search.repository import remove_text, replace_text
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


async def forget(conn: BaseDBAsyncClient, file_id: int) -> None:
    """Drop a file's text (its content changed, or it is no longer searched)."""
    await remove_text(file_id)  # in conn's transaction: the running one


async def store(conn: BaseDBAsyncClient, job: Claimed, result: Extracted, seconds: float) -> None:
    """Replace the file's text with what was read (the job's content is still current)."""
    pages = [""] * max((page for page, _ in result.pages), default=0)
    for page, text in result.pages:
        pages[page - 1] = text
    await replace_text(job.file_id, job.version_id, pages)  # in conn's transaction
    ocr_seconds = min(result.ocr_seconds, seconds)
    metrics.text_pages("text", result.pages_read - result.ocr_pages, seconds - ocr_seconds)
    metrics.text_pages("ocr", result.ocr_pages, ocr_seconds)
    announce_in(FILE_INDEXED, job.folder_id, job.container, job.folder, job.name, state="ready")


async def failed(conn: BaseDBAsyncClient, job: Claimed, reason: str) -> None:
    """The file's text cannot be read: nothing of it is searched (the listing says why)."""
    await forget(conn, job.file_id)
    announce_in(FILE_INDEXED, job.folder_id, job.container, job.folder, job.name, state="failed")


register(
    Kind(
        name=KIND_TEXT,
        wants=wants,
        work=extract_text,
        store=store,
        failed=failed,
        forget=forget,
        options=options,
        worker_modules=("bff.search.extract",),
    )
)
