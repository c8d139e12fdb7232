"""The content checks of every new content (issue 49), part of its screening
(bff/files/screening.py): what a file is, decided from its bytes and never its name, and whether
it may come in.

`ContentCheck.watch` keeps the first HEAD_BYTES of the chunks on their way to staging (never
the whole file) and counts them; `ContentCheck.verdict`, once they are all staged, decides:

- an empty file is refused ("The file is empty", 422 as every refused content);
- what the bytes are (`kind_of`): a program by its own signatures first (Windows PE, ELF,
  Mach-O, Java class, a script's `#!`), so that an executable never passes whatever puremagic
  ranks first (it names every file starting "MZ" a dozen ways); text by its bytes (UTF-8 or
  another 8-bit text without NULs: text has no magic); DICOM by `DICM` at byte 128; ZIP
  containers by the names inside (an OOXML or ODF document, a Java archive, a plain ZIP: the
  staged object's central directory read back, bounded, ZIP_DIRECTORY_BYTES); everything else
  by puremagic (pure Python, no libmagic);
- a program is refused under any name, and so is a name claiming a program's extension;
  a kind not in BFF_ALLOWED_TYPES is refused; a name whose extension claims another kind
  than the bytes are (a `.pdf` that is a PNG) is refused, saying what it is;
- a PDF is opened by pdfium in the worker pool (bff/workers.py; a copy of the staged object in
  the jobs' work directory, within BFF_PREVIEW_SECONDS and the pool's memory limit), and what
  active content it holds found there (bff/files/previews.py `pdf_findings`: every object qpdf
  reads, compressed object streams included, bff/files/pdf_active.py; pdfium's JavaScript and
  attachment counts; a search of the bytes with names' #xx escapes decoded); a PDF pdfium
  cannot open, or too slow or too large to look at, is refused or kept not displayable
  (BFF_DAMAGED_PDF); one with active content, or whose objects could not all be looked at
  (qpdf cannot open it or read one of them, a password, too slow, too large), is flagged or
  refused (BFF_PDF_ACTIVE_CONTENT): never passed as checked.

Content the portal made itself (a profile image's JPEG) is not checked (Screening.checked).
"""

from __future__ import annotations

import asyncio
import contextlib
import struct
from collections.abc import AsyncIterator
from dataclasses import dataclass

import puremagic

from bff.errors import ApiError
from bff.files.conversions import BUSY, BUSY_RETRY_SECONDS
from bff.files.markup import SVG, markup_of
from bff.files.names import extension_of
from bff.files.previews import pdf_findings
from bff.jobs.service import work_dir, work_folder
from bff.services import running_services
from bff.workers import WorkerBusy, WorkerFailed, WorkerPool, WorkerTimeout
from config.settings import Settings, load_settings
from storage.base import Storage

HEAD_BYTES = 64 * 1024  # what the sniffer keeps of a content's first bytes
# A ZIP's end-of-directory record lies in its last 22 bytes plus a comment of at most 65,535;
# of its central directory at most this much is read (the first entries' names decide).
ZIP_TAIL_BYTES = 22 + 65_535
ZIP_DIRECTORY_BYTES = 1024 * 1024
ZIP_NAMES = 2000

EMPTY = "The file is empty"
PDF_DAMAGED = "This PDF is damaged and cannot be opened; it was not saved."
PDF_TOO_SLOW = "This PDF took too long to open, so it cannot be checked; it was not saved."
PDF_TOO_LARGE = "This PDF has too many parts to be checked for active content; it was not saved."
_UNCHECKED = {"damaged": PDF_DAMAGED, "slow": PDF_TOO_SLOW, "large": PDF_TOO_LARGE}
PDF_NOT_CHECKED = (
    "This PDF could not be checked for active content, and PDFs must be checked here; "
    "it was not saved."
)
PDF_PASSWORD_NOT_CHECKED = (
    "This PDF is protected by a password, so it could not be checked for active content, "  # noqa: S105
    "and PDFs must be checked here; it was not saved."
)
# What activeContent says of a PDF kept (BFF_PDF_ACTIVE_CONTENT=flag) whose objects could not
# all be looked at: the listing's badge reads "Active content: could not be checked".
NOT_CHECKED = "could not be checked"


def program_refused(what: str) -> str:
    return f"This file was not saved: it is a program ({what}), and programs are not accepted."


def kind_refused(noun: str) -> str:
    return f"This file was not saved: {noun} files are not accepted here."


def not_what_named(claimed: str, what: str) -> str:
    return f"This file is not {claimed}: its contents are {what}."


def active_refused(found: str) -> str:
    return (
        f"This PDF contains active content ({found}) and PDFs with active content are not "
        "accepted here."
    )


@dataclass(frozen=True)
class Kind:
    """What a content is: its group (config/checks.py FILE_TYPES, or "program"), a noun for
    "<noun> files are not accepted" and what it is with its article ("a PNG image")."""

    group: str
    noun: str
    what: str


PROGRAM = "program"
UNRECOGNISED = Kind("other", "unknown", "of no type this portal recognises")
UNKNOWN_REFUSED = "This file was not saved: files of an unknown type are not accepted here."


def _kind(group: str, noun: str, article: str = "a") -> Kind:
    return Kind(group, noun, f"{article} {noun}")


PDF = _kind("pdf", "PDF")
TEXT = Kind("text", "text", "plain text")
HTML_PAGE = _kind("html", "HTML page", "an")
SVG_IMAGE = _kind("html", "SVG image", "an")
WEB_ARCHIVE = _kind("html", "web archive")

# puremagic's extensions, to the kinds they are (the first of its matches found here decides).
_BY_EXTENSION: dict[str, Kind] = {
    ".pdf": PDF,
    ".png": _kind("image", "PNG image"),
    ".jpg": _kind("image", "JPEG image"),
    ".jpeg": _kind("image", "JPEG image"),
    ".jfif": _kind("image", "JPEG image"),
    ".jpe": _kind("image", "JPEG image"),
    ".gif": _kind("image", "GIF image"),
    ".webp": _kind("image", "WebP image"),
    ".tif": _kind("image", "TIFF image"),
    ".tiff": _kind("image", "TIFF image"),
    ".bmp": _kind("image", "BMP image"),
    ".heic": _kind("image", "HEIC image"),
    ".heif": _kind("image", "HEIF image"),
    ".avif": _kind("image", "AVIF image"),
    ".rtf": _kind("rtf", "RTF document", "an"),
    ".html": HTML_PAGE,
    ".htm": HTML_PAGE,
    ".svg": SVG_IMAGE,
    ".xml": _kind("text", "XML document", "an"),
    ".json": _kind("text", "JSON document", "a"),
    ".doc": _kind("oldoffice", "Word 97-2003 document"),
    ".xls": _kind("oldoffice", "Excel 97-2003 workbook", "an"),
    ".ppt": _kind("oldoffice", "PowerPoint 97-2003 presentation"),
    ".dcm": _kind("dicom", "DICOM file"),
    ".zip": _kind("zip", "ZIP archive"),
    ".gz": _kind("other", "gzip archive"),
    ".7z": _kind("other", "7-Zip archive"),
    ".rar": _kind("other", "RAR archive"),
    ".tar": _kind("other", "tar archive"),
    ".mp3": _kind("other", "MP3 audio file", "an"),
    ".wav": _kind("other", "WAV audio file"),
    ".mp4": _kind("other", "MP4 video", "an"),
    ".mov": _kind("other", "QuickTime video"),
    ".avi": _kind("other", "AVI video", "an"),
    ".exe": _kind(PROGRAM, "Windows executable"),
    ".dll": _kind(PROGRAM, "Windows executable"),
    ".class": _kind(PROGRAM, "Java class"),
}
# Formats that are text, told by puremagic from text bytes (any other match on text is chance:
# a note starting "BM" is not a bitmap).
_TEXT_FORMATS = frozenset({".pdf", ".rtf", ".html", ".htm", ".svg", ".xml", ".json"})
# A program's own signatures, checked before anything else (a binary has NULs in its header).
_PROGRAM_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"MZ", "Windows executable"),
    (b"\x7fELF", "Linux executable (ELF)"),
    (b"\xfe\xed\xfa\xce", "macOS executable (Mach-O)"),
    (b"\xfe\xed\xfa\xcf", "macOS executable (Mach-O)"),
    (b"\xce\xfa\xed\xfe", "macOS executable (Mach-O)"),
    (b"\xcf\xfa\xed\xfe", "macOS executable (Mach-O)"),
    (b"\xca\xfe\xba\xbe", "macOS universal executable or Java class"),
)
# Names that say "program" whatever the bytes (a batch file is text, and runs when opened).
_PROGRAM_EXTENSIONS = frozenset(
    {
        "exe", "dll", "com", "scr", "msi", "msp", "bat", "cmd", "ps1", "vbs", "vbe", "js",
        "jse", "wsf", "wsh", "hta", "cpl", "lnk", "jar", "apk", "app", "sh", "elf",
        "reg", "msc", "url", "scf", "inf", "pif", "wsc", "gadget", "vb",
        # Office documents that say they hold macros.
        "docm", "dotm", "xlsm", "xltm", "xlam", "pptm", "potm", "ppsm", "ppam",
    }
)  # fmt: skip
# Names a browser opens as a page (or an SVG image): text under them is one, whatever its
# first bytes, and they claim the html kind (refused unless BFF_ALLOWED_TYPES allows html).
_PAGE_NAMES: dict[str, Kind] = {
    **dict.fromkeys(("html", "htm", "xhtml", "xht", "shtml", "shtm"), HTML_PAGE),
    **dict.fromkeys(("svg", "svgz"), SVG_IMAGE),
    **dict.fromkeys(("mht", "mhtml"), WEB_ARCHIVE),
}
# Names a browser opens as plain text: served text/plain, text/csv, text/markdown... with
# nosniff (bff/app.py) and a sandboxing CSP (bff/files/delivery.py), so markup under them is
# shown as text and runs nothing: a note starting with a comment or `<b>` is text.
_TEXT_NAMES = frozenset(("txt", "csv", "tsv", "text", "log", "md"))
# What a name's extension claims the bytes are: (group, "a PDF").
_CLAIMS: dict[str, tuple[str, str]] = {
    "pdf": ("pdf", "a PDF"),
    **dict.fromkeys(
        ("png", "jpg", "jpeg", "jfif", "jpe", "gif", "webp", "tif", "tiff", "bmp", "heic", "heif"),
        ("image", "an image"),
    ),
    **dict.fromkeys(_TEXT_NAMES, ("text", "a text file")),
    "rtf": ("rtf", "an RTF document"),
    **dict.fromkeys(
        ("docx", "xlsx", "pptx", "odt", "ods", "odp"), ("office", "an Office document")
    ),
    **dict.fromkeys(("doc", "xls", "ppt"), ("oldoffice", "an Office 97-2003 document")),
    **dict.fromkeys(("dcm", "dicom"), ("dicom", "a DICOM file")),
    "zip": ("zip", "a ZIP archive"),
    **{extension: (kind.group, kind.what) for extension, kind in _PAGE_NAMES.items()},
}
# A claim another group's bytes also satisfy (a DOCX is a ZIP).
_ALSO: dict[str, frozenset[str]] = {"zip": frozenset({"office"})}

# An Office Open XML document by its main part (a [Content_Types].xml alone makes none).
_OOXML = {
    "word/document.xml": _kind("office", "Word document"),
    "xl/workbook.xml": _kind("office", "Excel workbook", "an"),
    "ppt/presentation.xml": _kind("office", "PowerPoint presentation"),
}


def _macros_or_program(names: set[str]) -> str | None:
    """What in a ZIP container's names makes it a program: macros (an Office document's
    vbaProject.bin, ActiveX controls) or an entry named as a program (a .exe inside)."""
    for name in names:
        lower = name.lower()
        if lower.endswith("vbaproject.bin") or "/activex/" in lower:
            return "Office document with macros"
        base = lower.rsplit("/", 1)[-1]
        if "." in base and base.rsplit(".", 1)[-1] in _PROGRAM_EXTENSIONS:
            return "archive holding a program"
    return None


_ODF = {
    "application/vnd.oasis.opendocument.text": _kind("office", "OpenDocument text", "an"),
    "application/vnd.oasis.opendocument.spreadsheet": _kind(
        "office", "OpenDocument spreadsheet", "an"
    ),
    "application/vnd.oasis.opendocument.presentation": _kind(
        "office", "OpenDocument presentation", "an"
    ),
}
_ZIP_LOCAL = b"PK\x03\x04"
_ZIP_END = b"PK\x05\x06"
_ZIP_CENTRAL = b"PK\x01\x02"
# Control characters text may hold (tab, newlines, form feed, escape, DOS end of file).
_TEXT_CONTROLS = frozenset(b"\t\n\r\x0b\x0c\x1a\x1b")


def _is_text(head: bytes) -> bool:
    """Whether a content's first bytes are text: UTF-16 with its byte-order mark, or no NUL
    and (nearly) no control characters, UTF-8 or another 8-bit encoding (a CSV in
    Windows-1252)."""
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        even = head[2 : 2 + (len(head) - 2) // 2 * 2]
        encoding = "utf-16-le" if head[0] == 0xFF else "utf-16-be"
        try:
            decoded = even.decode(encoding)
        except UnicodeDecodeError as exc:
            if exc.start < len(even) - 2:  # not merely a surrogate pair cut at the head's end
                return False
            decoded = even[: exc.start].decode(encoding)
        return not any(ord(c) < 32 and ord(c) not in _TEXT_CONTROLS for c in decoded)
    if b"\x00" in head:
        return False
    # UTF-8 or not (Windows-1252, Latin-1), text has few control characters: compressed or
    # other binary bytes are one in eight below 32.
    controls = sum(1 for byte in head if byte < 32 and byte not in _TEXT_CONTROLS)
    return controls * 100 <= len(head)


def _program(head: bytes) -> str | None:
    """What program the bytes are, by its own signature; None if none."""
    binary = b"\x00" in head[:4096]
    for magic, what in _PROGRAM_MAGIC:
        if head.startswith(magic) and binary:
            return what
    if head.startswith(b"#!") and _is_text(head[:4096]):
        return "script"
    return None


def _puremagic(head: bytes, *, text: bool) -> Kind | None:
    try:
        matches = puremagic.magic_string(head)
    except (puremagic.PureError, ValueError):
        return None
    for match in matches:
        extension = match.extension.lower()
        if text and extension not in _TEXT_FORMATS:
            continue
        if extension in _BY_EXTENSION:
            return _BY_EXTENSION[extension]
    if text or not matches:
        return None
    name = matches[0].name.strip().removesuffix(" file").removesuffix(" File") or "unknown"
    return Kind("other", name, f"of the type {name!r}")


@dataclass(frozen=True)
class _ZipEntries:
    names: list[str]
    mimetype: str  # an ODF document's first entry, when the head holds it


def _local_entries(head: bytes) -> _ZipEntries:
    """The names of the entries whose local headers lie in head (stopping at one whose size
    comes after its data), and an ODF's stored mimetype."""
    names: list[str] = []
    mimetype = ""
    at = 0
    while at + 30 <= len(head) and head[at : at + 4] == _ZIP_LOCAL and len(names) < ZIP_NAMES:
        flags, method, size, name_length, extra_length = struct.unpack_from(
            "<2xHH8xI4xHH", head, at + 4
        )
        name = head[at + 30 : at + 30 + name_length].decode("utf-8", "replace")
        data_at = at + 30 + name_length + extra_length
        if name == "mimetype" and method == 0 and not names:
            mimetype = head[data_at : data_at + size].decode("ascii", "replace").strip()
        names.append(name)
        if flags & 0x08:
            break
        at = data_at + size
    return _ZipEntries(names, mimetype)


async def _read(storage: Storage, key: str, offset: int, length: int) -> bytes:
    async with await storage.open_staged(key, offset=offset, length=length) as stream:
        return b"".join([chunk async for chunk in stream])


async def _central_names(storage: Storage, key: str, size: int) -> list[str] | None:
    """The names in a staged ZIP's central directory (its first ZIP_DIRECTORY_BYTES, at most
    ZIP_NAMES of them), read back from storage; None when it has none to read (ZIP64, cut)."""
    tail_at = max(0, size - ZIP_TAIL_BYTES)
    tail = await _read(storage, key, tail_at, size - tail_at)
    end = tail.rfind(_ZIP_END)
    if end < 0 or end + 22 > len(tail):
        return None
    directory_size, directory_at = struct.unpack_from("<II", tail, end + 12)
    if directory_at == 0xFFFFFFFF or directory_at + directory_size > size:
        return None
    directory = await _read(storage, key, directory_at, min(directory_size, ZIP_DIRECTORY_BYTES))
    names: list[str] = []
    at = 0
    while at + 46 <= len(directory) and directory[at : at + 4] == _ZIP_CENTRAL:
        name_length, extra_length, comment_length = struct.unpack_from("<HHH", directory, at + 28)
        names.append(directory[at + 46 : at + 46 + name_length].decode("utf-8", "replace"))
        if len(names) >= ZIP_NAMES:
            break
        at += 46 + name_length + extra_length + comment_length
    return names


def _zip_kind(entries: _ZipEntries) -> Kind:
    """What a ZIP container is by the names inside it."""
    names = set(entries.names)
    program = _macros_or_program(names)
    if program is not None:
        return _kind(PROGRAM, program, "an")
    if entries.mimetype in _ODF:
        return _ODF[entries.mimetype]
    if "META-INF/MANIFEST.MF" in names or any(n.endswith(".class") for n in names):
        return _kind(PROGRAM, "Java archive")
    if "classes.dex" in names:
        return _kind(PROGRAM, "Android app", "an")
    if "[Content_Types].xml" in names:
        for part, kind in _OOXML.items():
            if part in names:
                return kind
    return _BY_EXTENSION[".zip"]


def kind_of(head: bytes) -> Kind:
    """What a content is from its first bytes (ZIPs by their first entries only; `verdict`
    reads their directory back)."""
    program = _program(head)
    if program is not None:
        return _kind(PROGRAM, program)
    if _is_text(head):
        if head.lstrip().startswith(b"%PDF-"):  # a PDF all of whose first bytes are text
            return PDF
        markup = markup_of(head)  # a web page or an SVG image, however its head starts
        if markup is not None:
            return SVG_IMAGE if markup == SVG else HTML_PAGE
        return _puremagic(head, text=True) or TEXT
    if head[128:132] == b"DICM":
        return _BY_EXTENSION[".dcm"]
    if head.startswith(_ZIP_LOCAL):
        return _zip_kind(_local_entries(head))
    if b"%PDF-" in head[:1024]:  # pdfium, as readers do, allows bytes before the header
        return PDF
    return _puremagic(head, text=False) or UNRECOGNISED


@dataclass(frozen=True)
class Findings:
    """What the checks found in content they let in (Screened's columns)."""

    active_content: str = ""
    displayable: bool = True


def _settings() -> tuple[Settings, WorkerPool | None]:
    services = running_services()
    if services is None:  # the command line (the demo): settings from the environment
        return load_settings(), None
    return services.settings, services.workers


class ContentCheck:
    """One content's checks: `watch` keeps its head, `verdict` judges it once staged."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._head = bytearray()
        self._size = 0

    async def watch(self, chunks: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
        """The chunks as they pass, the first HEAD_BYTES kept and all counted."""
        async for chunk in chunks:
            if len(self._head) < HEAD_BYTES:
                self._head += chunk[: HEAD_BYTES - len(self._head)]
            self._size += len(chunk)
            yield chunk

    async def verdict(self, storage: Storage, staging_key: str) -> Findings:
        """What was found in the staged content, or a refusal (ApiError 422; 503 when the
        worker pool has no room for a PDF)."""
        if self._size == 0:
            raise ApiError(422, EMPTY)
        head = bytes(self._head)
        kind = kind_of(head)
        if kind.group == "zip" or kind.group == "office":
            names = await _central_names(storage, staging_key, self._size)
            if names is not None:
                local = _local_entries(head)
                kind = _zip_kind(_ZipEntries(names, local.mimetype))
        # Windows drops a name's trailing dots and spaces on saving: "run.bat." is "run.bat".
        extension = extension_of(self.name.rstrip(". "))
        if kind.group == PROGRAM:
            raise ApiError(422, program_refused(kind.noun))
        if extension in _PROGRAM_EXTENSIONS:
            raise ApiError(422, program_refused(f".{extension} file"))
        if extension in _PAGE_NAMES and kind.group == "text":
            kind = _PAGE_NAMES[extension]  # a browser shows it as a page by its name
        if extension in _TEXT_NAMES and kind in (HTML_PAGE, SVG_IMAGE) and _is_text(head):
            kind = TEXT  # a browser shows it as text by its name
        claim = _CLAIMS.get(extension)
        if claim is not None and kind.group not in {claim[0], *_ALSO.get(claim[0], ())}:
            raise ApiError(422, not_what_named(claim[1], kind.what))
        settings, workers = _settings()
        if kind.group not in settings.allowed_types.split(","):
            raise ApiError(
                422, UNKNOWN_REFUSED if kind is UNRECOGNISED else kind_refused(kind.noun)
            )
        if kind.group != "pdf":
            return Findings()
        return await _pdf_verdict(storage, staging_key, settings, workers)


async def _pdf_verdict(
    storage: Storage, staging_key: str, settings: Settings, workers: WorkerPool | None
) -> Findings:
    """The rule (docs/security.md, Content checks): a PDF pdfium cannot open, or too slow or
    large to look at, is refused or kept not displayable (BFF_DAMAGED_PDF); whatever was not
    looked at is never passed as checked: refused with BFF_PDF_ACTIVE_CONTENT=refuse, kept
    flagged "could not be checked" with flag, as is active content found."""
    try:
        state, found, unchecked = await _pdf_findings(storage, staging_key, settings, workers)
    except WorkerBusy:
        raise ApiError(503, BUSY, {"Retry-After": BUSY_RETRY_SECONDS}) from None
    except WorkerTimeout:
        state, found, unchecked = "slow", (), "slow"
    except WorkerFailed:  # out of memory, or pdfium took its worker down: not a PDF to open
        state, found, unchecked = "damaged", (), "unreadable"
    if state in _UNCHECKED and settings.damaged_pdf == "refuse":
        raise ApiError(422, _UNCHECKED[state])
    active = ", ".join(found)
    if settings.pdf_active_content == "refuse":
        if active:
            raise ApiError(422, active_refused(active))
        if unchecked:
            password = unchecked == "password" or state == "password"
            raise ApiError(422, PDF_PASSWORD_NOT_CHECKED if password else PDF_NOT_CHECKED)
    if unchecked:
        active = f"{active}, {NOT_CHECKED}" if active else NOT_CHECKED
    return Findings(active, displayable=state not in _UNCHECKED)


async def _pdf_findings(
    storage: Storage, staging_key: str, settings: Settings, workers: WorkerPool | None
) -> tuple[str, tuple[str, ...], str]:
    """previews.pdf_findings on a copy of the staged PDF in the jobs' work directory, in the
    worker pool (its place taken before anything is copied; WorkerBusy at once when full)."""
    with workers.reserve() if workers is not None else contextlib.nullcontext() as place:
        async with work_folder(work_dir(settings)) as folder:
            path = folder / "content.pdf"
            stream = await storage.open_staged(staging_key)
            with path.open("wb") as out:
                async with stream:
                    async for chunk in stream:
                        await asyncio.to_thread(out.write, chunk)
            if place is None:
                return await asyncio.to_thread(pdf_findings, str(path), settings.preview_seconds)
            return await place.run(
                pdf_findings, str(path), settings.preview_seconds, seconds=settings.preview_seconds
            )
