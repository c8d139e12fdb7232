"""Work on an intake PDF's pages, in a worker process (never the server's): its pages counted,
some of its pages as new PDFs (a split), pages turned by their /Rotate (pikepdf, qpdf). Each
reads a private copy of the PDF and writes what it makes beside it (bff/intake/workspace.py),
so the server never holds a PDF whole; the pool bounds each job's memory and time. Output is
deterministic (the same input and request give the same bytes), so a split done twice makes
the same items.

qpdf does not fail when it runs out of memory parsing an object: it warns and reads the object
as null, and what it writes then silently lacks part of the document. Such a warning is raised
here as the MemoryError it is (the pool then ends the worker: WorkerOutOfMemory)."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def _whole(*pdfs: Any) -> None:
    """MemoryError if qpdf ran out of memory reading any of pdfs (it read an object as null)."""
    for pdf in pdfs:
        if any("bad_alloc" in warning for warning in pdf.get_warnings()):
            raise MemoryError("qpdf ran out of memory reading this PDF")


def count_pdf_pages(path: str) -> int:
    """The number of pages of the PDF at path."""
    import pikepdf  # in the worker only

    with pikepdf.open(path) as pdf:
        count = len(pdf.pages)
        _whole(pdf)
        return count


def extract_pages(path: str, ranges: list[tuple[int, int]], folder: str) -> list[str]:
    """One PDF per range of pages (1-based, both ends included) of the PDF at path, written
    into folder; their paths, in order."""
    import pikepdf  # in the worker only

    parts = []
    with pikepdf.open(path) as source:
        pages = list(source.pages)  # once: each pages[n] walks the page tree anew
        for index, (first, last) in enumerate(ranges, start=1):
            part = pikepdf.new()
            part.pages.extend(pages[first - 1 : last])
            out = str(Path(folder) / f"part-{index}.pdf")
            part.save(out, deterministic_id=True)
            _whole(source, part)
            parts.append(out)
    return parts


def rotate_pages(path: str, pages: list[int] | None, degrees: int, out: str) -> int:
    """The PDF at path with pages (1-based; None: all) turned clockwise by degrees (a multiple
    of 90), written to out; its size."""
    import pikepdf  # in the worker only

    with pikepdf.open(path) as pdf:
        every = list(pdf.pages)  # once: each pdf.pages[n] walks the page tree anew (quadratic)
        for page in every if pages is None else [every[number - 1] for number in pages]:
            page.rotate(degrees, relative=True)
        pdf.save(out, deterministic_id=True)
        _whole(pdf)
    return Path(out).stat().st_size
