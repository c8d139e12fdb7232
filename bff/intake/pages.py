"""An intake item's page count: a PDF's pages counted by qpdf (pikepdf) in the worker pool,
never in the server's process; an image is one page. Unknown (None) when it cannot be said."""

from __future__ import annotations

import io
import logging

from bff.services import running_services
from bff.workers import WorkerBusy, WorkerFailed, WorkerTimeout
from storage.base import Storage, StorageError

log = logging.getLogger(__name__)

PDF = "application/pdf"
MAX_COUNTED_BYTES = 200 * 1024 * 1024  # larger PDFs are listed without a page count
COUNT_SECONDS = 20.0


def count_pdf_pages(data: bytes) -> int:
    """The number of pages of a PDF (in a worker)."""
    import pikepdf  # in the worker only

    with pikepdf.open(io.BytesIO(data)) as pdf:
        return len(pdf.pages)


async def _staged_bytes(storage: Storage, staging_key: str) -> bytes:
    data = bytearray()
    async with await storage.open_staged(staging_key) as chunks:
        async for chunk in chunks:
            data += chunk
    return bytes(data)


async def page_count(
    storage: Storage, staging_key: str, content_type: str, size: int
) -> int | None:
    """The pages of a staged content of content_type: 1 for an image, a PDF's counted, else
    None (and None when the pool is busy or the PDF cannot be read: the count is for show)."""
    base = content_type.split(";")[0].strip().lower()
    if base.startswith("image/"):
        return 1
    services = running_services()
    if base != PDF or size > MAX_COUNTED_BYTES or services is None:
        return None
    try:
        data = await _staged_bytes(storage, staging_key)
        return await services.workers.run(count_pdf_pages, data, seconds=COUNT_SECONDS)
    except (WorkerBusy, WorkerTimeout, WorkerFailed, StorageError, OSError):
        return None
    except Exception as exc:  # noqa: BLE001 - a PDF qpdf cannot read: listed without a count
        log.info("An intake PDF's pages could not be counted: %s", type(exc).__name__)
        return None
