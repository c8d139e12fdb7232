"""Pictures of files, rendered in a worker process (bff/workers.py) and never in the server's:
a thumbnail (WebP, THUMBNAIL_SIZE px on the long side) of a PDF's first page or of an image,
and a PDF page at a requested width for the in-app viewer, and a PDF's page count; for the
viewer too, whether an image may reach the browser as it is (`image_display`: within the
thumbnail's decompression budget) and, for one that may not, a reduced copy (`reduced_image`,
REDUCED_SIZE px on its long side): made by libvips's `vipsthumbnail` (BFF_VIPSTHUMBNAIL), which
streams the image through its shrink instead of decoding it whole, up to MAX_STREAMED_PIXELS;
without it by Pillow, up to its guard (MAX_SOURCE_PIXELS).

Pure functions of the file's bytes (pickled to the worker); each refusal is PreviewRefused with
a reason a person can read. PDFs are opened with pypdfium2 (not thread-safe: one document at a
time in a worker process, which runs one job at a time); images with Pillow under the limits
profile images have (bff/files/images.py: header checked before decoding, JPEGs decoded scaled
down, pixel and memory bounds), so a decompression bomb is refused before it costs memory.
A rendered page never exceeds MAX_RENDER_PIXELS, whatever size the PDF says its page is.
vipsthumbnail runs as a child of the worker: under the worker's address-space limit (inherited),
killed before the worker's time limit ends and with the worker, with libvips's untrusted loaders
blocked and one thread.
"""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import tempfile
import threading
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pypdfium2 as pdfium
from PIL import Image, ImageOps, UnidentifiedImageError

from bff.files.images import (
    MAX_SOURCE_PIXELS,
    TOO_MANY_PIXELS,
    InvalidImage,
    check_header,
    check_kind,
    over_budget,
)
from bff.files.pdf_active import (
    EMBEDDED,
    JAVASCRIPT,
    ORDER,
    Unchecked,
    named_in_bytes,
    named_in_objects,
)
from bff.files.pixels import HEAD_BYTES, Size, image_size
from bff.jobs.work import Unreadable
from bff.workers import die_with_worker

THUMBNAIL_SIZE = 256
# The long side of the picture the viewer shows of an image too large to hand to the browser.
REDUCED_SIZE = 2000
# The most pixels a reduced copy is streamed from (a gigapixel: the review's 900-megapixel PNG
# takes 2-6 s and 80-190 MB here); beyond it refused from the header, nothing decoded.
MAX_STREAMED_PIXELS = 1_000_000_000
# What vipsthumbnail is given: formats the viewer shows (libvips's own loaders for them; BMP has
# none that is not "untrusted"), and its environment: no other loaders, one thread, one malloc
# arena (each thread's arena reserves 64 MB of address space, which the limit counts).
STREAMED_FORMATS = frozenset({"PNG", "JPEG", "GIF", "WEBP"})
VIPS_ENVIRONMENT = {"VIPS_BLOCK_UNTRUSTED": "1", "VIPS_CONCURRENCY": "1", "MALLOC_ARENA_MAX": "1"}
# The widths a page is rendered at: a requested width is snapped up to the next one, so that a
# few renderings of a page serve every screen (and their caches are shared).
PAGE_WIDTHS = (320, 480, 640, 800, 1024, 1280, 1600, 2000)
MIN_PAGE_WIDTH, MAX_PAGE_WIDTH = 200, PAGE_WIDTHS[-1]
# An A4 page at 2000 px wide is 5.7 megapixels; a very tall page is scaled down to this.
MAX_RENDER_PIXELS = 12_000_000
# A page of more than this many points on a side (200 inches) is not a page to show.
MAX_PAGE_POINTS = 14_400
WEBP_QUALITY = 80
WEBP_METHOD = 1  # 0 (fast) to 6 (small): pages at 1 cost a few percent more bytes, far less time
# Lossless WebP's effort (0-100 at WEBP_METHOD): 50 is as small as 100 for typed pages, far faster.
WEBP_LOSSLESS_EFFORT = 50
# The copy that decides between lossy and lossless is this many times smaller on each side.
WEBP_TRIAL_REDUCTION = 3
# Lossless encoding takes two to three times lossy's memory (a 12-megapixel page: 374-531 MB
# against 172 MB): a picture of more pixels is lossy, and one lossless could not encode (out of
# the worker's memory: Pillow's "encoding error") is encoded lossy instead.
WEBP_LOSSLESS_PIXELS = 6_000_000
# pdfium is not thread-safe: one document at a time in a process (a worker runs one job at a
# time anyway; this guards the command line, which renders in threads).
_PDFIUM = threading.Lock()
PREVIEW_TYPES = frozenset(
    {"application/pdf", "image/png", "image/jpeg", "image/webp", "image/gif", "image/bmp"}
)

PDF_DAMAGED = "This PDF could not be read. It may be damaged or incomplete."
PDF_PASSWORD = "This PDF is protected by a password, so it cannot be shown here."  # noqa: S105
PDF_NO_PAGES = "This PDF has no pages."
PDF_ODD_PAGE = "This PDF's page has an unusable size, so it cannot be shown here."
IMAGE_DAMAGED = "The image could not be read. It may be damaged or incomplete."
PAGE_OUTSIDE = "Page not found"
NOT_PREVIEWABLE = "There is no preview for this type of file."
TOO_LARGE = "This file is too large for a preview."
IMAGE_TOO_LARGE = "This image has too many pixels to show here, even reduced."
IMAGE_NOT_REDUCED = (
    "This image has too many pixels to show here, and this server cannot make a reduced copy "
    "of one so large."
)
IMAGE_TOO_SLOW = "This image took too long to reduce for showing here."
IMAGE_TOO_MUCH_MEMORY = "This image needs more memory to reduce than the server allows."


@dataclass(frozen=True)
class Reducer:
    """How reduced copies are streamed: `command`, the vipsthumbnail program (a name looked up
    on PATH, or a path; empty: none), given at most `seconds`."""

    command: str = ""
    seconds: float = 20.0

    def program(self) -> str | None:
        """The program's path, or None when it is not installed (or not configured)."""
        return shutil.which(self.command) if self.command else None


NO_REDUCER = Reducer()


class PreviewRefused(ValueError):
    """The file cannot or must not be rendered (the message says why)."""


def base_type(content_type: str) -> str:
    """A content type without its parameters, in lower case."""
    return content_type.split(";")[0].strip().lower()


def has_preview(content_type: str) -> bool:
    """Whether files of this type get a thumbnail (PDFs and ordinary images)."""
    return base_type(content_type) in PREVIEW_TYPES


def snap_width(width: int) -> int:
    """The rendering width for a requested one (MIN_PAGE_WIDTH..MAX_PAGE_WIDTH): the smallest
    of PAGE_WIDTHS at least as wide."""
    return next(w for w in PAGE_WIDTHS if w >= width)


def _encode_webp(image: Image.Image, *, lossless: bool) -> bytes:
    out = io.BytesIO()
    if lossless:
        image.save(out, format="WEBP", lossless=True, quality=WEBP_LOSSLESS_EFFORT, method=1)
    else:
        image.save(out, format="WEBP", quality=WEBP_QUALITY, method=WEBP_METHOD)
    return out.getvalue()


def prefers_lossless(image: Image.Image) -> bool:
    """Whether `image` is smaller as lossless WebP than lossy: typed text and drawn lines (flat
    white, sharp edges) are, by far (a one-page letter at 800 px: 6 KB against 71 KB, and sharp);
    a photo or a scan is not (twice to three times larger). Decided on a copy a third as wide,
    which costs a tenth of encoding the picture and chose as the full size did on letters,
    coloured letterheads, photos in a letter and scans at 800 to 2000 px."""
    width, height = image.size
    if min(width, height) < 3 * WEBP_TRIAL_REDUCTION or width * height > WEBP_LOSSLESS_PIXELS:
        return False
    trial = image.reduce(WEBP_TRIAL_REDUCTION)
    return len(_encode_webp(trial, lossless=True)) < len(_encode_webp(trial, lossless=False))


def _webp(image: Image.Image) -> bytes:
    if prefers_lossless(image):
        try:
            return _encode_webp(image, lossless=True)
        except (ValueError, MemoryError, OSError):
            pass  # out of memory: lossy needs less
    return _encode_webp(image, lossless=False)


def _open_pdf(source: bytes | str) -> pdfium.PdfDocument:
    """A PDF from its bytes or its path (read by pdfium as it needs: less memory)."""
    try:
        return pdfium.PdfDocument(source)
    except pdfium.PdfiumError as exc:
        if "password" in str(exc).lower():
            raise PreviewRefused(PDF_PASSWORD) from None
        raise PreviewRefused(PDF_DAMAGED) from None


def _render(document: pdfium.PdfDocument, index: int, width: int, *, long_side: bool) -> bytes:
    """Page index (0-based) as WebP: width px wide, or on its long side (long_side)."""
    if len(document) == 0:
        raise PreviewRefused(PDF_NO_PAGES)
    if not 0 <= index < len(document):
        raise PreviewRefused(PAGE_OUTSIDE)
    try:
        page = document[index]
        try:
            page_w, page_h = page.get_size()
            if not (0 < page_w <= MAX_PAGE_POINTS and 0 < page_h <= MAX_PAGE_POINTS):
                raise PreviewRefused(PDF_ODD_PAGE)
            scale = width / (max(page_w, page_h) if long_side else page_w)
            pixels = page_w * scale * page_h * scale
            if pixels > MAX_RENDER_PIXELS:
                scale *= (MAX_RENDER_PIXELS / pixels) ** 0.5
            bitmap = page.render(scale=scale, may_draw_forms=True)
            try:
                image = bitmap.to_pil()
                return _webp(image.convert("RGB"))
            finally:
                bitmap.close()
        finally:
            page.close()
    except pdfium.PdfiumError:
        raise PreviewRefused(PDF_DAMAGED) from None


def pdf_page_count(source: bytes | str) -> int:
    """How many pages a PDF (its bytes or path) has (PreviewRefused if it cannot be read)."""
    with _PDFIUM:
        document = _open_pdf(source)
        try:
            return len(document)
        finally:
            document.close()


# What share of its time limit a PDF's checks give qpdf's walk of its objects: past it the PDF
# is "slow" (cannot be checked) before the worker's limit kills it.
WALK_SHARE = 0.75


def pdf_findings(path: str, seconds: float) -> tuple[str, tuple[str, ...], str]:
    """Whether pdfium opens a PDF (its path), what active content it holds and whether all of
    it could be looked at: (state, found, unchecked). state is "ok", "password" (pdfium needs
    one) or "damaged" (pdfium cannot open it, or it has no pages), then "slow" or "large" for
    one whose objects could not all be looked at within WALK_SHARE of seconds or pdf_active's
    bounds; found in the order JAVASCRIPT, LAUNCH, EMBEDDED; unchecked "" when qpdf's walk of
    every object (pdf_active.named_in_objects) ended, else why not (pdf_active.Unchecked's
    reason: what was found is then only part of what the PDF may hold).

    Found by qpdf's walk, pdfium's JavaScript and attachment counts and a search of the bytes
    (names' #xx escapes decoded); the last two add findings and never stand in for the walk."""
    deadline = time.monotonic() + seconds * WALK_SHARE
    found = named_in_bytes(path)
    unchecked = ""
    try:
        found |= named_in_objects(path, deadline)
    except Unchecked as cut:
        found |= cut.found
        unchecked = cut.reason
    state = "ok"
    with _PDFIUM:
        try:
            document = pdfium.PdfDocument(path)
        except pdfium.PdfiumError as exc:
            state = "password" if "password" in str(exc).lower() else "damaged"
        else:
            try:
                raw = pdfium.raw
                if raw.FPDFDoc_GetJavaScriptActionCount(document.raw) > 0:
                    found.add(JAVASCRIPT)
                if raw.FPDFDoc_GetAttachmentCount(document.raw) > 0:
                    found.add(EMBEDDED)
                if len(document) == 0:
                    state = "damaged"
            except pdfium.PdfiumError:
                state = "damaged"
            finally:
                document.close()
    if state == "ok" and unchecked in ("slow", "large"):
        state = unchecked
    return state, tuple(name for name in ORDER if name in found), unchecked


def pdf_page(source: bytes | str, page: int, width: int) -> bytes:
    """Page `page` (1-based) of a PDF (its bytes or path) rendered `width` px wide, as WebP."""
    with _PDFIUM:
        document = _open_pdf(source)
        try:
            return _render(document, page - 1, width, long_side=False)
        finally:
            document.close()


def _image_picture(
    source: bytes | str, size: int, check: Callable[[Image.Image], None], too_many: str
) -> bytes:
    """An image (its first frame, upright) as WebP of at most size px on its long side, once
    check(image) accepted its header; more pixels than Pillow's own guard: too_many."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", Image.DecompressionBombWarning)
        try:
            with Image.open(io.BytesIO(source) if isinstance(source, bytes) else source) as image:
                if image.format == "JPEG":  # decoded scaled down: less of everything
                    image.draft("RGB", (size, size))
                check(image)
                image.seek(0)  # an animation's first frame
                image.load()
                # Reduced in place first, then turned upright: exif_transpose copies the image
                # (the whole decoded image, were it first: twice the memory of a large one).
                image.thumbnail((size, size), Image.Resampling.LANCZOS)
                upright = ImageOps.exif_transpose(image)
                has_alpha = upright.mode in ("RGBA", "LA", "PA") or (
                    upright.mode == "P" and "transparency" in upright.info
                )
                return _webp(upright.convert("RGBA" if has_alpha else "RGB"))
        except InvalidImage as exc:
            raise PreviewRefused(str(exc)) from None
        except UnidentifiedImageError:
            raise PreviewRefused(IMAGE_DAMAGED) from None
        except (Image.DecompressionBombError, Image.DecompressionBombWarning):
            raise PreviewRefused(too_many) from None
        except (OSError, SyntaxError, ValueError, EOFError):
            raise PreviewRefused(IMAGE_DAMAGED) from None


def _image_thumbnail(source: bytes | str) -> bytes:
    return _image_picture(source, THUMBNAIL_SIZE, check_header, TOO_MANY_PIXELS)


def _head(source: bytes | str) -> bytes:
    if isinstance(source, bytes):
        return source[:HEAD_BYTES]
    with open(source, "rb") as handle:
        return handle.read(HEAD_BYTES)


def _streamable(size: Size, reducer: Reducer) -> str:
    """The vipsthumbnail program that may reduce an image of this size, or PreviewRefused."""
    program = reducer.program()
    if size.pixels > MAX_STREAMED_PIXELS or (program and size.format not in STREAMED_FORMATS):
        raise PreviewRefused(IMAGE_TOO_LARGE)
    if program is None:
        raise PreviewRefused(IMAGE_NOT_REDUCED)
    return program


def image_display(source: bytes | str, reducer: Reducer = NO_REDUCER) -> bool:
    """Whether the viewer may hand this image to the browser as it is: its header read here
    (nothing decoded) says an accepted format and pixel format within the thumbnail's
    decompression budget (bff/files/images.py `over_budget`, on its full size). False: only a
    reduced copy is shown (`reduced_image`). PreviewRefused when not even that can be made:
    beyond Pillow's guard (MAX_SOURCE_PIXELS) without the reducer, or beyond what it streams
    (MAX_STREAMED_PIXELS); not an image; a damaged header."""
    size = image_size(_head(source))
    if size is not None and size.pixels > MAX_SOURCE_PIXELS:
        _streamable(size, reducer)
        return False
    with warnings.catch_warnings():
        warnings.simplefilter("error", Image.DecompressionBombWarning)
        try:
            with Image.open(io.BytesIO(source) if isinstance(source, bytes) else source) as image:
                check_kind(image)
                return not over_budget(image.size, image.mode)
        except InvalidImage as exc:
            raise PreviewRefused(str(exc)) from None
        except (Image.DecompressionBombError, Image.DecompressionBombWarning):
            raise PreviewRefused(IMAGE_TOO_LARGE) from None
        except (UnidentifiedImageError, OSError, SyntaxError, ValueError, EOFError):
            raise PreviewRefused(IMAGE_DAMAGED) from None


def _streamed(path: str, program: str, seconds: float) -> bytes:
    """The image at path reduced by vipsthumbnail to REDUCED_SIZE px on its long side, as WebP
    (its metadata stripped): killed after most of `seconds`, so that the worker answers first."""
    with tempfile.TemporaryDirectory(prefix="bff-reduced-") as folder:
        out = Path(folder) / "reduced.webp"
        command = [
            program,
            path,
            "--size",
            f"{REDUCED_SIZE}x{REDUCED_SIZE}>",  # ">": only ever smaller
            "--output",
            f"{out}[Q={WEBP_QUALITY},strip]",
        ]
        try:
            done = subprocess.run(  # noqa: S603 - our own arguments, no shell
                command,
                capture_output=True,
                env={"PATH": os.environ.get("PATH", ""), **VIPS_ENVIRONMENT},
                timeout=max(seconds * 0.9, 1.0),
                check=False,
                preexec_fn=die_with_worker,
            )
        except subprocess.TimeoutExpired:
            raise PreviewRefused(IMAGE_TOO_SLOW) from None
        except OSError:
            raise PreviewRefused(IMAGE_DAMAGED) from None
        # Out of address space libvips warns, then often crashes (a signal) or gives up.
        if done.returncode < 0 or b"out of memory" in done.stderr:
            raise PreviewRefused(IMAGE_TOO_MUCH_MEMORY)
        picture = out.read_bytes() if done.returncode == 0 and out.is_file() else b""
        if not (picture.startswith(b"RIFF") and picture[8:12] == b"WEBP"):
            raise PreviewRefused(IMAGE_DAMAGED)
        return picture


def reduced_image(source: bytes | str, reducer: Reducer = NO_REDUCER) -> bytes:
    """An image too large for the browser reduced to REDUCED_SIZE px on its long side, as WebP:
    streamed by the reducer when it is installed (PNG, JPEG, GIF, WebP up to
    MAX_STREAMED_PIXELS, within the worker's memory limit: it never holds the whole image),
    else decoded here by Pillow (a JPEG scaled down as it is decoded; the worker's memory and
    time limits bound the rest); PreviewRefused as `image_display` refuses."""
    size = image_size(_head(source))
    if size is not None and (
        size.pixels > MAX_SOURCE_PIXELS
        or (size.format in STREAMED_FORMATS and reducer.program() is not None)
    ):
        program = _streamable(size, reducer)
        if isinstance(source, str):
            return _streamed(source, program, reducer.seconds)
        with tempfile.NamedTemporaryFile(prefix="bff-image-") as copy:
            copy.write(source)
            copy.flush()
            return _streamed(copy.name, program, reducer.seconds)
    return _image_picture(source, REDUCED_SIZE, check_kind, IMAGE_TOO_LARGE)


def thumbnail(source: bytes | str, content_type: str) -> tuple[bytes, int | None]:
    """The WebP thumbnail of a PDF's first page or of an image, and a PDF's page count
    (PreviewRefused otherwise)."""
    kind = base_type(content_type)
    if kind == "application/pdf":
        with _PDFIUM:
            document = _open_pdf(source)
            try:
                return _render(document, 0, THUMBNAIL_SIZE, long_side=True), len(document)
            finally:
                document.close()
    if kind in PREVIEW_TYPES:
        return _image_thumbnail(source), None
    raise PreviewRefused(NOT_PREVIEWABLE)


def thumbnail_job(path: str, facts: Any, max_bytes: int) -> tuple[bytes, int | None]:
    """The work of a thumbnail job (bff/files/thumbnails.py, run by bff/jobs/): the thumbnail
    and page count of the content copied to path; Unreadable for a file that never has one."""
    if facts.size > max_bytes:
        raise Unreadable(TOO_LARGE)
    try:
        return thumbnail(path, facts.content_type)
    except PreviewRefused as exc:
        raise Unreadable(str(exc)) from None
