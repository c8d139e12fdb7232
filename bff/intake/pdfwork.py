"""Work on an intake PDF's pages, in a worker process (never the server's): some of its pages
as a new PDF (a split), pages turned by their /Rotate (pikepdf, qpdf). Output is deterministic
(the same input and request give the same bytes), so a split done twice makes the same items."""

from __future__ import annotations

import io


def extract_pages(data: bytes, ranges: list[tuple[int, int]]) -> list[bytes]:
    """One PDF per range of pages (1-based, both ends included), in order."""
    import pikepdf  # in the worker only

    parts = []
    with pikepdf.open(io.BytesIO(data)) as source:
        for first, last in ranges:
            part = pikepdf.new()
            part.pages.extend(source.pages[first - 1 : last])
            out = io.BytesIO()
            part.save(out, deterministic_id=True)
            parts.append(out.getvalue())
    return parts


def rotate_pages(data: bytes, pages: list[int] | None, degrees: int) -> bytes:
    """The PDF with pages (1-based; None: all) turned clockwise by degrees (a multiple of 90)."""
    import pikepdf  # in the worker only

    with pikepdf.open(io.BytesIO(data)) as pdf:
        chosen = range(1, len(pdf.pages) + 1) if pages is None else pages
        for number in chosen:
            pdf.pages[number - 1].rotate(degrees, relative=True)
        out = io.BytesIO()
        pdf.save(out, deterministic_id=True)
        return out.getvalue()
