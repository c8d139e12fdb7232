"""Barcodes read from a scan, page by page: the QR and DataMatrix codes' texts of every page of a
PDF (rendered by pdfium in grey at READ_DPI) or an image (Pillow; each frame of a TIFF is a page).

A page's codes also count the QR codes large enough to be a sheet's that were found but could
not be decoded (`damaged`): splitting.py never lets the pages from such a page on join a routed
document, since it may be a damaged sheet of the next patient.

`read_codes` is a plain function of a path returning plain values, so that it runs in a
WorkerPool (bff/workers.py) as every heavy reading does; its work is bounded by MAX_PAGES and
the pixel budgets, beyond which it refuses the whole scan (CodesUnreadable with a message a
person can read): a scan read in part could route its unread pages with the pages before them.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import zxingcpp
from PIL import Image, UnidentifiedImageError

# 150 dpi reads a cover sheet's 45 mm QR code (about 5 pixels a module) and a separator's,
# printed and scanned slightly askew; about 2.2 million pixels an A4 page.
READ_DPI = 150
MAX_PAGES = 500
PAGE_PIXELS = 12_000_000  # a page read at most this large (a larger one is reduced first)
SOURCE_PIXELS = 100_000_000  # an image frame larger than this is not decoded at all
TOTAL_PIXELS = 2_000_000_000  # pixels read in one scan, all pages together
IMAGE_FORMATS = frozenset({"TIFF", "PNG", "JPEG", "BMP", "WEBP"})
# A QR code found but not decoded counts when its side is at least this part of the page's shorter
# side (a cover sheet's is about 0.18 of an A4 page's; text misread as codes is far smaller).
DAMAGED_SIDE = 0.08
FORMATS = zxingcpp.BarcodeFormats(
    [zxingcpp.BarcodeFormat.QRCode, zxingcpp.BarcodeFormat.DataMatrix]
)


class CodesUnreadable(Exception):
    """The scan's codes cannot be read; str() says why, for the person who sent it."""


@dataclass(frozen=True)
class PageCodes:
    """One page's barcodes: the texts read (each once, as found), and how many QR codes of a
    sheet's size were found but could not be decoded."""

    texts: tuple[str, ...] = ()
    damaged: int = 0


def read_codes(path: str, max_pages: int = MAX_PAGES, dpi: int = READ_DPI) -> list[PageCodes]:
    """Each page's barcodes (QR and DataMatrix), in page order."""
    pages: list[PageCodes] = []
    budget = TOTAL_PIXELS
    for picture in _pages(Path(path), max_pages, dpi):
        budget -= picture.width * picture.height
        if budget < 0:
            raise CodesUnreadable("This scan has too many pixels to read its barcodes.")
        found = zxingcpp.read_barcodes(
            picture,
            formats=FORMATS,
            try_rotate=True,
            try_downscale=True,
            try_invert=False,  # printed sheets are dark on light: half the work
            text_mode=zxingcpp.TextMode.Plain,
            return_errors=True,
        )
        texts: list[str] = []
        damaged = 0
        shorter = min(picture.width, picture.height)
        for barcode in found:
            if barcode.valid:
                if barcode.text not in texts:
                    texts.append(barcode.text)
            elif barcode.format == zxingcpp.BarcodeFormat.QRCode and _side(barcode) >= (
                DAMAGED_SIDE * shorter
            ):
                damaged += 1
        pages.append(PageCodes(tuple(texts), damaged))
    return pages


def _side(barcode: zxingcpp.Barcode) -> float:
    """The longest side of the code's quadrilateral, in pixels."""
    corners = barcode.position
    points = [corners.top_left, corners.top_right, corners.bottom_right, corners.bottom_left]
    return max(
        math.dist((a.x, a.y), (b.x, b.y))
        for a, b in zip(points, points[1:] + points[:1], strict=True)
    )


def _pages(path: Path, max_pages: int, dpi: int) -> Iterator[Image.Image]:
    """The scan's pages as greyscale pictures, one at a time."""
    try:
        with path.open("rb") as handle:
            head = handle.read(1024)
    except OSError:
        raise CodesUnreadable("This scan could not be opened.") from None
    if b"%PDF-" in head:  # a PDF's header may follow up to 1 KB of other bytes
        yield from _pdf_pages(path, max_pages, dpi)
    else:
        yield from _image_pages(path, max_pages)


def _pdf_pages(path: Path, max_pages: int, dpi: int) -> Iterator[Image.Image]:
    import pypdfium2 as pdfium

    try:
        document = pdfium.PdfDocument(str(path))
    except pdfium.PdfiumError as exc:
        if "password" in str(exc).lower():
            raise CodesUnreadable("This PDF is protected by a password.") from None
        raise CodesUnreadable("This PDF is damaged and cannot be read.") from None
    try:
        count = len(document)
        if count > max_pages:
            raise CodesUnreadable(_too_many(count, max_pages))
        for index in range(count):
            try:
                page = document[index]
            except pdfium.PdfiumError:
                raise CodesUnreadable("This PDF is damaged and cannot be read.") from None
            try:
                width, height = page.get_size()  # points, 72 an inch
                scale = dpi / 72
                if width * height * scale * scale > PAGE_PIXELS:
                    scale = math.sqrt(PAGE_PIXELS / max(width * height, 1.0))
                bitmap = page.render(scale=scale, grayscale=True, may_draw_forms=False)
                try:
                    picture = bitmap.to_pil().convert("L")
                finally:
                    bitmap.close()
            finally:
                page.close()
            yield picture
    finally:
        document.close()


def _image_pages(path: Path, max_pages: int) -> Iterator[Image.Image]:
    damaged = "This image is damaged or not a scan the intake reads (PDF, TIFF, PNG, JPEG)."
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            image = Image.open(path)
    except (Image.DecompressionBombError, Image.DecompressionBombWarning):
        raise CodesUnreadable("This image has too many pixels to read its barcodes.") from None
    except (UnidentifiedImageError, OSError, ValueError):
        raise CodesUnreadable(damaged) from None
    with image:
        if image.format not in IMAGE_FORMATS:
            raise CodesUnreadable(damaged)
        # A TIFF's frames are its pages (a fax); any other image is read by its first frame.
        count = getattr(image, "n_frames", 1) if image.format == "TIFF" else 1
        if count > max_pages:
            raise CodesUnreadable(_too_many(count, max_pages))
        for index in range(count):
            try:
                image.seek(index)
                if image.width * image.height > SOURCE_PIXELS:
                    raise CodesUnreadable("This image has too many pixels to read its barcodes.")
                frame = image.convert("L")
            except (OSError, ValueError, EOFError):
                raise CodesUnreadable(damaged) from None
            pixels = frame.width * frame.height
            if pixels > PAGE_PIXELS:
                frame = frame.reduce(math.ceil(math.sqrt(pixels / PAGE_PIXELS)))
            yield frame


def _too_many(count: int, max_pages: int) -> str:
    return f"This scan has {count} pages; the intake reads at most {max_pages} in one file."
