"""Barcodes read from a scan, page by page: the QR and DataMatrix codes' texts of every page of a
PDF (rendered by pdfium in grey at READ_DPI) or an image (Pillow; each frame of a TIFF is a page).

A page's codes also count the QR codes large enough to be a sheet's that were found but could
not be decoded (`damaged`): splitting.py never lets the pages from such a page on join a routed
document, since it may be a damaged sheet of the next patient. Each text also counts the symbols
that carried it (`copies`): a printed sheet shows its code twice a side, a code stuck on a
document's page once, and splitting.py removes only the former. And whether the page is blank
(`blank`, measured on the page already rendered, a few milliseconds): a one-sided cover sheet fed
face down scans as a blank page, and splitting.py stops a routed document there.

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
# A page is blank when at most BLANK_CELLS cells of a grid of INK_GRID cells across its shorter side
# (about 5 mm on A4) hold ink: pixels darker than INK_LEVEL on INK_SHARE of the cell or more. The
# page's edges (EDGE of each side: a skewed page's dark scanner background) are not looked at,
# nor a column of cells inked almost its whole length (an ADF's streak from dirty glass).
# Measured with inked_cells on test scans (sheet_scans.py, read at 150 dpi, PDF and fax TIFF):
# blank with noise, with 300 dust specks, with a letter's show-through from its back, turned up
# to 4 degrees on a black background, with a 1 or 2 px streak down it: 0 cells (a 2 px streak
# is 54 without the column rule); "Seen." alone, "Page 2 of 2" alone: 1 (blank); "ok - AJ" in
# 16 pt: 2; a three-line sign-off: 8; three lines of a letter: 30; a letter: 625; a sheet: 326.
# About 2 ms a page (zxing-cpp's reading: about 60).
INK_LEVEL = 160
INK_SHARE = 0.05
INK_GRID = 40
EDGE = 0.05
BLANK_CELLS = 1
STREAK_ROWS = 0.75


def _formats() -> zxingcpp.BarcodeFormats:
    """The formats read, made per call: a zxing-cpp object kept at module level outlives the
    interpreter's teardown, and nanobind then prints "leaked ..." lines to stderr at every
    exit (into the server's JSON log)."""
    return zxingcpp.BarcodeFormats(
        [zxingcpp.BarcodeFormat.QRCode, zxingcpp.BarcodeFormat.DataMatrix]
    )


class CodesUnreadable(Exception):
    """The scan's codes cannot be read; str() says why, for the person who sent it."""


@dataclass(frozen=True)
class PageCodes:
    """One page's barcodes: the texts read (each once, as found), how many QR codes of a
    sheet's size were found but could not be decoded, how many symbols (in different places)
    carried each text (copies[i] for texts[i]; empty: one each), and whether the page is blank."""

    texts: tuple[str, ...] = ()
    damaged: int = 0
    copies: tuple[int, ...] = ()
    blank: bool = False

    def copies_of(self, text: str) -> int:
        """How many symbols on the page carried text (0: none)."""
        if text not in self.texts:
            return 0
        return self.copies[self.texts.index(text)] if self.copies else 1


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
            formats=_formats(),
            try_rotate=True,
            try_downscale=True,
            try_invert=False,  # printed sheets are dark on light: half the work
            text_mode=zxingcpp.TextMode.Plain,
            return_errors=True,
        )
        places: dict[str, list[tuple[float, float, float]]] = {}
        damaged = 0
        shorter = min(picture.width, picture.height)
        for barcode in found:
            if barcode.valid:
                seen = places.setdefault(barcode.text, [])
                x, y, side = _place(barcode)
                if all(math.dist((x, y), (a, b)) > max(side, other) / 2 for a, b, other in seen):
                    seen.append((x, y, side))  # the same symbol found twice counts once
            elif barcode.format == zxingcpp.BarcodeFormat.QRCode and _side(barcode) >= (
                DAMAGED_SIDE * shorter
            ):
                damaged += 1
        copies = tuple(len(seen) for seen in places.values())
        pages.append(PageCodes(tuple(places), damaged, copies, is_blank(picture)))
    return pages


def is_blank(picture: Image.Image) -> bool:
    """Whether a grey page holds no more than BLANK_CELLS cells of ink (see INK_LEVEL)."""
    return inked_cells(picture) <= BLANK_CELLS


def inked_cells(picture: Image.Image) -> int:
    """How many cells of the page's grid hold ink (see INK_LEVEL): its edges and streaks aside."""
    left, top = round(picture.width * EDGE), round(picture.height * EDGE)
    inner = picture.crop((left, top, picture.width - left, picture.height - top))
    cell = min(picture.width, picture.height) / INK_GRID
    columns, rows = max(1, round(inner.width / cell)), max(1, round(inner.height / cell))
    ink = inner.point([255 if value < INK_LEVEL else 0 for value in range(256)])
    grid = ink.resize((columns, rows), Image.Resampling.BOX)  # each cell: its share of ink
    share = math.ceil(INK_SHARE * 255)
    inked = 0
    for column in range(columns):
        count = sum(grid.crop((column, 0, column + 1, rows)).histogram()[share:])
        if count < STREAK_ROWS * rows:
            inked += count
    return inked


def _place(barcode: zxingcpp.Barcode) -> tuple[float, float, float]:
    """The code's centre and its longest side, in pixels."""
    corners = barcode.position
    points = [corners.top_left, corners.top_right, corners.bottom_right, corners.bottom_left]
    x = sum(point.x for point in points) / 4
    y = sum(point.y for point in points) / 4
    return x, y, _side(barcode)


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
