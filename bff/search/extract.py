"""The text of a file's content, page by page, for search: run in a job's worker process
(the job pool, bff/workers.py: time and memory limits), never in the server.

- plain text (and an RTF upload's converted text, as stored): decoded as UTF-8 (or UTF-16 with
  its byte-order mark), else Windows-1252; an RTF itself through striprtf;
- PDF: each page's text layer (pypdfium2; one document per process: pdfium is not
  thread-safe, and each worker runs one job at a time); a page without one is rendered at
  300 dpi (at most MAX_RENDER_PIXELS) and read by OCR, up to BFF_OCR_MAX_PAGES pages;
- Word .docx (python-docx): paragraphs, tables, headers and footers;
- images (JPEG, PNG, TIFF with its pages, WebP, GIF, BMP): OCR.

Each PDF page's and image's words are kept with their boxes too (bff/search/words.py): from the
text layer's characters, or from the same OCR run (tesseract's text and TSV outputs at once); an
image is read upright (its EXIF orientation), as the viewer shows it.

OCR is Debian's `tesseract` program in the languages of BFF_OCR_LANGUAGES, one thread, killed
with the worker (PR_SET_PDEATHSIG) and after a time limit of its own. A file that can never be
read raises `Unreadable` with a sentence a person can read (encrypted PDF, damaged file).
"""

from __future__ import annotations

import codecs
import contextlib
import os
import subprocess
import time
import warnings
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from PIL import Image, UnidentifiedImageError

from bff.jobs.work import Unavailable, Unreadable
from bff.search.words import MAX_FILE_JSON, Word, encoded, pdf_words, tsv_words
from bff.workers import die_with_worker

TEXT_EXTENSIONS = frozenset(
    {"txt", "text", "md", "markdown", "csv", "tsv", "json", "xml", "html", "htm", "log", "ini"}
)
IMAGE_EXTENSIONS = frozenset({"jpg", "jpeg", "png", "tif", "tiff", "webp", "gif", "bmp"})
OCR_FORMATS = frozenset({"JPEG", "PNG", "TIFF", "WEBP", "GIF", "BMP", "MPO"})
READ_EXTENSIONS = TEXT_EXTENSIONS | IMAGE_EXTENSIONS | {"pdf", "docx", "rtf"}

MAX_TEXT_CHARS = 2_000_000  # of one file; what follows is not searched
MAX_TEXT_BYTES = 8 * 1024 * 1024  # of a text file read (UTF-32 at worst is 4 bytes a char)
OCR_DPI = 300
MAX_RENDER_PIXELS = 25_000_000  # a page rendered for OCR (A4 at 300 dpi: 8.7 million)
MAX_IMAGE_PIXELS = 50_000_000  # an image read by OCR
Image.MAX_IMAGE_PIXELS = MAX_IMAGE_PIXELS

ENCRYPTED_PDF = "This PDF is protected by a password, so its text cannot be read."
DAMAGED_PDF = "This PDF could not be read. It may be damaged or incomplete."
DAMAGED_DOCX = "This Word document could not be read. It may be damaged or not a .docx file."
DAMAGED_IMAGE = "This image could not be read. It may be damaged or incomplete."
IMAGE_TOO_LARGE = (
    f"This image has too many pixels to be read (the limit is {MAX_IMAGE_PIXELS // 1_000_000} "
    "megapixels)."
)
DAMAGED_RTF = "This RTF document could not be read. It may be damaged."
NO_OCR = "Text recognition (OCR) is not installed on the server (the tesseract-ocr package)."


def no_language(languages: str) -> str:
    """The reason when tesseract lacks the data of a language in BFF_OCR_LANGUAGES."""
    return (
        f"Text recognition (OCR) cannot use the languages '{languages}' on the server: install "
        "their tesseract-ocr language packages or change BFF_OCR_LANGUAGES."
    )


@dataclass(frozen=True)
class TextOptions:
    """What the extraction is told by the settings."""

    languages: str = "eng"  # tesseract's -l
    max_ocr_pages: int = 50
    ocr_timeout: float = 120.0  # one tesseract run at most


@dataclass
class Extracted:
    """A file's text: (page, text) pairs, pages numbered from 1 (1 for a file without pages),
    only pages with text; how many pages were read and how many of them by OCR; and the words
    with their boxes of the pages that have them (a PDF's, an image's): (page, compact JSON)."""

    pages: list[tuple[int, str]] = field(default_factory=list)
    words: list[tuple[int, str]] = field(default_factory=list)
    pages_read: int = 0
    ocr_pages: int = 0
    ocr_seconds: float = 0.0  # spent in OCR (rendering the pages included)
    truncated: bool = False
    _chars: int = 0
    _word_chars: int = 0

    def add(self, page: int, text: str) -> bool:
        """Keep a page's text; False once the file's MAX_TEXT_CHARS are reached."""
        text = text.replace("\x00", "").strip()
        if text and not self.truncated:
            room = MAX_TEXT_CHARS - self._chars
            if len(text) > room:
                text, self.truncated = text[:room], True
            self.pages.append((page, text))
            self._chars += len(text)
        return not self.truncated

    @property
    def wants_words(self) -> bool:
        """Whether more words may be kept (the file's MAX_FILE_JSON not reached): else a page's
        are not even read (about 6 us a character from pdfium)."""
        return self._word_chars < MAX_FILE_JSON - 2

    def add_words(self, page: int, words: list[Word]) -> None:
        """Keep a page's words (encoded), within the file's MAX_FILE_JSON."""
        if not words:
            return
        stored = encoded(words, min(MAX_FILE_JSON - self._word_chars, 1_000_000))
        if stored != "[]":
            self.words.append((page, stored))
            self._word_chars += len(stored)


def _format(path: Path, name: str, content_type: str) -> str:
    """pdf, docx, image, rtf or text: by the content's first bytes, then by the name."""
    with path.open("rb") as source:
        head = source.read(1024)
    extension = name.rpartition(".")[2].lower() if "." in name else ""
    if b"%PDF-" in head:
        return "pdf"
    if head.startswith(b"{\\rtf"):
        return "rtf"
    if extension == "docx" or (head.startswith(b"PK\x03\x04") and extension != "zip"):
        return "docx" if extension == "docx" else "other"
    if extension in IMAGE_EXTENSIONS or content_type.startswith("image/"):
        return "image"
    if extension == "pdf":
        return "pdf"  # not one: pdfium says it is damaged
    if extension in TEXT_EXTENSIONS or content_type.startswith("text/"):
        return "text"
    return "other"


def extract_text(path: str, facts: Any, options: TextOptions) -> Extracted:
    """The text of the content at path (facts: bff.jobs.work.FileFacts)."""
    source = Path(path)
    kind = _format(source, facts.name, facts.content_type)
    result = Extracted()
    if kind == "pdf":
        _pdf(source, options, result)
    elif kind == "docx":
        _docx(source, result)
    elif kind == "image":
        _image(source, options, result)
    elif kind == "rtf":
        _rtf(source, result)
    elif kind == "text":
        _text(source, result)
    return result


def _text(path: Path, result: Extracted) -> None:
    with path.open("rb") as source:
        data = source.read(MAX_TEXT_BYTES)
    result.pages_read = 1
    result.add(1, decode(data))


def decode(data: bytes) -> str:
    """Text of unknown encoding: UTF-8 or UTF-16/32 by their byte-order mark, else UTF-8 if it
    is valid (a cut last character forgiven), else Windows-1252 (every byte means something)."""
    for bom, encoding in (
        (codecs.BOM_UTF32_LE, "utf-32"),
        (codecs.BOM_UTF32_BE, "utf-32"),
        (codecs.BOM_UTF8, "utf-8-sig"),
        (codecs.BOM_UTF16_LE, "utf-16"),
        (codecs.BOM_UTF16_BE, "utf-16"),
    ):
        if data.startswith(bom):
            return data.decode(encoding, errors="replace")
    try:
        return codecs.getincrementaldecoder("utf-8")().decode(data, final=False)
    except UnicodeDecodeError:
        return data.decode("cp1252", errors="replace")


def _rtf(path: Path, result: Extracted) -> None:
    from bff.files.rtf import InvalidRtf, convert_rtf

    with path.open("rb") as source:
        data = source.read(MAX_TEXT_BYTES)
    try:
        text = convert_rtf(data)
    except InvalidRtf:
        raise Unreadable(DAMAGED_RTF) from None
    result.pages_read = 1
    result.add(1, text)


def _docx(path: Path, result: Extracted) -> None:
    import docx
    from docx.opc.exceptions import PackageNotFoundError

    try:
        document = docx.Document(str(path))
    except (PackageNotFoundError, zipfile.BadZipFile, KeyError, ValueError, OSError):
        raise Unreadable(DAMAGED_DOCX) from None
    except Exception as exc:
        if isinstance(exc, MemoryError):
            raise
        raise Unreadable(DAMAGED_DOCX) from None
    parts: list[str] = []
    for section in document.sections:
        with contextlib.suppress(Exception):  # a header or footer python-docx cannot read
            parts += [p.text for p in section.header.paragraphs]
    parts += [p.text for p in document.paragraphs]
    for table in document.tables:
        for row in table.rows:
            parts.append("\t".join(cell.text for cell in row.cells))
    for section in document.sections:
        with contextlib.suppress(Exception):
            parts += [p.text for p in section.footer.paragraphs]
    result.pages_read = 1
    result.add(1, "\n".join(p for p in parts if p))


def _pdf(path: Path, options: TextOptions, result: Extracted) -> None:
    import pypdfium2 as pdfium

    try:
        pdf = pdfium.PdfDocument(str(path))
    except pdfium.PdfiumError as exc:
        raise Unreadable(ENCRYPTED_PDF if "password" in str(exc).lower() else DAMAGED_PDF) from None
    try:
        for index in range(len(pdf)):
            try:
                page = pdf[index]
            except pdfium.PdfiumError:
                raise Unreadable(DAMAGED_PDF) from None
            try:
                textpage = page.get_textpage()
                try:
                    text = textpage.get_text_bounded()
                    wanted = text.strip() and result.wants_words
                    words = pdf_words(page, textpage) if wanted else []
                finally:
                    textpage.close()
                if not text.strip() and result.ocr_pages < options.max_ocr_pages:
                    started = time.monotonic()
                    text, words = _ocr_page(page, path.parent / f"page-{index + 1}.png", options)
                    result.ocr_pages += 1
                    result.ocr_seconds += time.monotonic() - started
            finally:
                page.close()
            result.pages_read += 1
            kept = result.add(index + 1, text)
            result.add_words(index + 1, words)
            if not kept:
                break
    finally:
        pdf.close()


def _ocr_page(page: Any, image_path: Path, options: TextOptions) -> tuple[str, list[Word]]:
    """A PDF page's text and words by OCR: rendered in greyscale at OCR_DPI, at most
    MAX_RENDER_PIXELS (the rendering is the page as shown: its words' boxes are too)."""
    width, height = page.get_size()  # in points, 72 a inch
    scale = OCR_DPI / 72
    if width * height * scale * scale > MAX_RENDER_PIXELS:
        scale = (MAX_RENDER_PIXELS / max(width * height, 1.0)) ** 0.5
    bitmap = page.render(scale=scale, grayscale=True, may_draw_forms=False)
    try:
        picture = bitmap.to_pil()
        size = picture.size
        picture.save(image_path, format="PNG")
    finally:
        bitmap.close()
    try:
        return ocr_words(image_path, size, options)
    finally:
        image_path.unlink(missing_ok=True)


def _image(path: Path, options: TextOptions, result: Extracted) -> None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            image = Image.open(path)
    except (Image.DecompressionBombError, Image.DecompressionBombWarning):
        raise Unreadable(IMAGE_TOO_LARGE) from None
    except (UnidentifiedImageError, OSError, ValueError):
        raise Unreadable(DAMAGED_IMAGE) from None
    with image:
        if image.format not in OCR_FORMATS:
            raise Unreadable(DAMAGED_IMAGE)
        if image.width * image.height > MAX_IMAGE_PIXELS:
            raise Unreadable(IMAGE_TOO_LARGE)
        # A TIFF's frames are its pages; an animated GIF or WebP is read by its first frame.
        frames = getattr(image, "n_frames", 1) if image.format == "TIFF" else 1
        for index in range(min(frames, max(options.max_ocr_pages, 1))):
            started = time.monotonic()
            try:
                image.seek(index)
                frame = _upright(image, image.convert("L"))
                target = path.parent / f"frame-{index + 1}.png"
                frame.save(target, format="PNG")
            except (OSError, ValueError, EOFError):
                raise Unreadable(DAMAGED_IMAGE) from None
            try:
                text, words = ocr_words(target, frame.size, options)
            finally:
                target.unlink(missing_ok=True)
            result.pages_read += 1
            result.ocr_pages += 1
            result.ocr_seconds += time.monotonic() - started
            kept = result.add(index + 1, text)
            result.add_words(index + 1, words)
            if not kept:
                break


def _upright(image: Image.Image, frame: Image.Image) -> Image.Image:
    """frame (of image) turned as its EXIF orientation says: as browsers and the viewer's
    reduced copy (bff/files/previews.py) show it, so its words' boxes fall where it is seen."""
    try:
        orientation = image.getexif().get(0x0112, 1)
    except (OSError, ValueError, SyntaxError, TypeError, KeyError):  # a damaged EXIF block
        return frame
    method = {
        2: Image.Transpose.FLIP_LEFT_RIGHT,
        3: Image.Transpose.ROTATE_180,
        4: Image.Transpose.FLIP_TOP_BOTTOM,
        5: Image.Transpose.TRANSPOSE,
        6: Image.Transpose.ROTATE_270,
        7: Image.Transpose.TRANSVERSE,
        8: Image.Transpose.ROTATE_90,
    }.get(orientation)
    return frame if method is None else frame.transpose(method)


def ocr_words(
    image_path: Path, size: tuple[int, int], options: TextOptions
) -> tuple[str, list[Word]]:
    """The text tesseract reads in an image file (size: its width and height in pixels), in
    BFF_OCR_LANGUAGES, and its words with their boxes: one run, its text and TSV outputs."""
    base = image_path.with_name(image_path.stem + "-ocr")
    command = [
        "tesseract",
        str(image_path),
        str(base),
        "-l",
        options.languages,
        "--psm",
        "3",
        "txt",
        "tsv",
    ]
    env = {**os.environ, "OMP_THREAD_LIMIT": "1"}
    started = time.monotonic()
    try:
        done = subprocess.run(  # noqa: S603 - our own arguments, no shell
            command,
            capture_output=True,
            env=env,
            timeout=options.ocr_timeout,
            check=False,
            preexec_fn=die_with_worker,  # tesseract dies with its worker
        )
    except FileNotFoundError:
        raise Unavailable(NO_OCR) from None
    except subprocess.TimeoutExpired:
        seconds = time.monotonic() - started
        message = f"Text recognition (OCR) of one page took over {seconds:.0f} seconds."
        raise Unavailable(message) from None
    if done.returncode != 0:
        if b"Failed loading language" in done.stderr or b"Error opening data file" in done.stderr:
            raise Unavailable(no_language(options.languages))
        raise Unreadable(DAMAGED_IMAGE)
    text_file, tsv_file = base.with_suffix(".txt"), base.with_suffix(".tsv")
    try:
        text = decode(text_file.read_bytes()[:MAX_TEXT_BYTES]) if text_file.exists() else ""
        tsv = decode(tsv_file.read_bytes()) if tsv_file.exists() else ""
    finally:
        text_file.unlink(missing_ok=True)
        tsv_file.unlink(missing_ok=True)
    return text, tsv_words(tsv, *size)
