"""An intake item's page count: a PDF's pages counted by qpdf (pikepdf) in the worker pool, on a
private copy of its staged bytes (bff/intake/workspace.py: never held whole in the server's
process); an image is one page. Unknown (None) when it cannot be said."""

from __future__ import annotations

import logging

from bff.intake.pdfwork import count_pdf_pages
from bff.intake.workspace import copy_into, private_folder
from bff.services import running_services
from bff.workers import WorkerBusy, WorkerFailed, WorkerTimeout
from storage.base import Storage, StorageError

log = logging.getLogger(__name__)

PDF = "application/pdf"
COUNT_SECONDS = 20.0


async def page_count(storage: Storage, staging_key: str, content_type: str) -> int | None:
    """The pages of a staged content of content_type: 1 for an image, a PDF's counted, else
    None (and None when the pool is busy or the PDF cannot be read: the count is for show; a
    split or a turn counts again)."""
    base = content_type.split(";")[0].strip().lower()
    if base.startswith("image/"):
        return 1
    services = running_services()
    if base != PDF or services is None:
        return None
    try:
        with services.workers.reserve() as place:  # before a byte is copied
            async with private_folder(services.settings) as folder:
                path = folder / "content.pdf"
                await copy_into(await storage.open_staged(staging_key), path)
                return await place.run(count_pdf_pages, str(path), seconds=COUNT_SECONDS)
    except (WorkerBusy, WorkerTimeout, WorkerFailed, StorageError, OSError):
        return None
    except Exception as exc:  # noqa: BLE001 - a PDF qpdf cannot read: listed without a count
        log.info("An intake PDF's pages could not be counted: %s", type(exc).__name__)
        return None
