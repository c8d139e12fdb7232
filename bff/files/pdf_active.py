"""What active content a PDF holds (issue 49's review): every object qpdf reads of it (pikepdf),
those inside compressed object streams too, its names as qpdf decodes them (`/J#61vaScript` is
/JavaScript); when qpdf cannot read the file, a search of its bytes with the names' `#xx`
escapes decoded. Run in a worker process by bff/files/previews.py `pdf_findings`.

Every object is looked at, not only the places a reader starts from (the names tree, an
/OpenAction, a document's, page's, annotation's or field's /AA, an action's /Next, an outline
item): an action anywhere is found. An object's text as qpdf writes it (the objects written
inside it included) is searched first for the names a finding needs; only the few that name
one are walked entry by entry. Found:

- JAVASCRIPT: an action dictionary with /S /JavaScript or a /JS entry (a /Rendition action's
  too), the names tree's /JavaScript, and an XFA form's scripts (`<script>` in its XML);
- LAUNCH: an action with /S /Launch;
- EMBEDDED: an embedded file stream (/Type /EmbeddedFile), a file specification holding one
  (/EF), the names tree's /EmbeddedFiles, a /FileAttachment or /RichMedia annotation (whose
  content is embedded files).

Not flagged: links (/URI, /GoTo, /GoToR), /SubmitForm and /ImportData actions: they run no code
in the reader, and the portal's viewer renders pages as images, so no action of a PDF runs
there at all.

Bounded: a PDF of more than MAX_OBJECTS objects, or whose objects naming active content hold
more than MAX_ITEMS entries, or whose walk outlasts its deadline is `Unchecked` (refused or
kept not displayable as a PDF that cannot be opened, never passed as checked); memory is the
worker's limit.
"""

from __future__ import annotations

import re
import time
import zlib

import pikepdf

# What is found, in the order bff/files/content.py stores them (comma-separated).
JAVASCRIPT, LAUNCH, EMBEDDED = "JavaScript", "launch actions", "embedded files"
ORDER = (JAVASCRIPT, LAUNCH, EMBEDDED)

# qpdf keeps every object it has read: 250,000 small ones are about 3 s and 500 MB here (a
# 1,000-page scan has some 5,000), within the pool's default 1 GB and BFF_PREVIEW_SECONDS.
MAX_OBJECTS = 250_000
# Entries of the dictionaries and arrays walked entry by entry.
MAX_ITEMS = 5_000_000
# An XFA form's XML read for scripts, decompressed, at most this much.
XFA_BYTES = 16 * 1024 * 1024
_XFA_SCRIPT = re.compile(rb"<(?:[\w.-]+:)?script[\s>/]", re.IGNORECASE)

_TYPE_ACTIONS = {"/JavaScript": JAVASCRIPT, "/Launch": LAUNCH}
_SUBTYPES = {"/FileAttachment": EMBEDDED, "/RichMedia": EMBEDDED}
# Keys whose presence says what a dictionary holds.
_KEYS = (
    ("/JS", JAVASCRIPT),
    ("/JavaScript", JAVASCRIPT),
    ("/EF", EMBEDDED),
    ("/EmbeddedFiles", EMBEDDED),
)


class Unchecked(Exception):
    """The walk stopped before its end: `reason` is "slow" (past its deadline) or "large"
    (over MAX_OBJECTS or MAX_ITEMS)."""

    def __init__(self, reason: str, found: set[str]) -> None:
        super().__init__(reason)
        self.reason = reason
        self.found = found


def _in_dictionary(entry: pikepdf.Object) -> set[str]:
    """What one dictionary (or a stream's dictionary) says it is."""
    found: set[str] = set()
    action = entry.get("/S")
    if isinstance(action, pikepdf.Name) and str(action) in _TYPE_ACTIONS:
        found.add(_TYPE_ACTIONS[str(action)])
    subtype = entry.get("/Subtype")
    if isinstance(subtype, pikepdf.Name) and str(subtype) in _SUBTYPES:
        found.add(_SUBTYPES[str(subtype)])
    kind = entry.get("/Type")
    if isinstance(kind, pikepdf.Name) and str(kind) == "/EmbeddedFile":
        found.add(EMBEDDED)
    for key, what in _KEYS:
        if key in entry:
            found.add(what)
    return found


def _stream_text(stream: pikepdf.Object, limit: int) -> bytes:
    """At most limit bytes of a stream's decoded data (Flate decompressed a piece at a time,
    so a small stream cannot expand past the limit in memory)."""
    filters = stream.get("/Filter")
    if isinstance(filters, pikepdf.Array) and len(filters) == 1:
        filters = filters[0]
    if filters is None:
        return stream.read_raw_bytes()[:limit]
    if isinstance(filters, pikepdf.Name) and str(filters) == "/FlateDecode":
        try:
            return zlib.decompressobj().decompress(stream.read_raw_bytes(), limit)
        except zlib.error:
            return b""
    return stream.read_bytes()[:limit]  # another filter: decoded by qpdf, within memory


def _xfa_scripts(form: pikepdf.Object) -> bool:
    """Whether an AcroForm's XFA (one stream, or an array of names and streams) has scripts."""
    xfa = form.get("/XFA")
    streams = [xfa] if isinstance(xfa, pikepdf.Stream) else []
    if isinstance(xfa, pikepdf.Array):
        streams = [part for part in xfa if isinstance(part, pikepdf.Stream)]
    text = b""
    for stream in streams:  # one XML document cut in pieces: a tag may span two
        try:
            text += _stream_text(stream, XFA_BYTES - len(text))
        except pikepdf.PdfError:
            continue
        if len(text) >= XFA_BYTES:
            break
    return _XFA_SCRIPT.search(text) is not None


# The names every finding needs in an object's text as qpdf writes it (names decoded, objects
# written inside it included): only the objects naming one are walked entry by entry.
_CANDIDATE = re.compile(
    rb"/(?:JavaScript|JS|Launch|EmbeddedFiles?|EF|FileAttachment|RichMedia|XFA)"
    rb"(?=[\x00\t\n\x0c\r /<>\[\]()%{}]|$)"
)


def _walk(top: pikepdf.Object, budget: int) -> tuple[set[str], int]:
    """What one object and the objects written inside it hold, and how many entries that took
    (at most about budget: Unchecked past it)."""
    found: set[str] = set()
    items = 0
    stack = [top]
    while stack:
        item = stack.pop()
        if isinstance(item, pikepdf.Dictionary | pikepdf.Stream):
            found |= _in_dictionary(item)
            if "/XFA" in item and _xfa_scripts(item):
                found.add(JAVASCRIPT)
            values = list(item.values())
        elif isinstance(item, pikepdf.Array):
            values = list(item)
        else:
            continue
        items += len(values)
        if items > budget:
            raise Unchecked("large", found)
        # References are objects of their own, each looked at in its turn.
        stack.extend(
            value
            for value in values
            if isinstance(value, pikepdf.Dictionary | pikepdf.Array) and not value.is_indirect
        )
    return found, items


def named_in_objects(path: str, deadline: float) -> set[str] | None:
    """What active content a PDF's objects hold, or None when qpdf cannot open it (or it needs
    a password); Unchecked when the walk is cut short (MAX_OBJECTS, MAX_ITEMS, deadline, a
    time.monotonic() value)."""
    # What qpdf raises on hostile input is not always a PdfError: whatever it is (but memory
    # running out, which the worker pool reports), that file or that object is not read.
    try:
        pdf = pikepdf.open(path, inherit_page_attributes=False)
    except MemoryError:
        raise
    except Exception:  # noqa: BLE001 (see above: the caller falls back to the bytes)
        return None
    found: set[str] = set()
    items = 0
    with pdf:
        try:
            objects = list(pdf.get_xref_table().items())
        except MemoryError:
            raise
        except Exception:  # noqa: BLE001 (as above)
            return None
        if len(objects) > MAX_OBJECTS:
            raise Unchecked("large", found)
        for number, (objgen, entry) in enumerate(objects):
            if entry.type == 0:  # a free entry
                continue
            if number % 256 == 0 and time.monotonic() > deadline:
                raise Unchecked("slow", found)
            try:
                top = pdf.get_object(objgen)
                if isinstance(top, pikepdf.Stream):
                    text = top.stream_dict.unparse(resolved=True)
                else:
                    text = top.unparse(resolved=True)
                if _CANDIDATE.search(text) is None:
                    continue
                held, used = _walk(top, MAX_ITEMS - items)
            except Unchecked as cut:
                raise Unchecked(cut.reason, found | cut.found) from None
            except MemoryError:
                raise
            except Exception:  # noqa: BLE001, S112 (one unreadable object: the others are read)
                continue
            found |= held
            items += used
    return found


# The names searched for in the bytes, each letter as itself or its #xx escape (either case of
# hex digit), followed by a delimiter: /JavaScript, /J#61vaScript and /#4A#61vaScript alike.
_SEARCHED = {
    "JavaScript": JAVASCRIPT,
    "JS": JAVASCRIPT,
    "Launch": LAUNCH,
    "EmbeddedFiles": EMBEDDED,
    "EmbeddedFile": EMBEDDED,
    "FileAttachment": EMBEDDED,
    "RichMedia": EMBEDDED,
}


def _spelled(name: str) -> bytes:
    """A pattern of name's letters, each as itself or its #xx escape."""
    letters = []
    for char in name:
        code = f"{ord(char):02x}"
        low = f"[{code[1]}{code[1].upper()}]" if code[1].isalpha() else code[1]
        letters.append(f"(?:{char}|#{code[0]}{low})")
    return "".join(letters).encode()


_NAMES_IN_BYTES = re.compile(
    b"/(?:"
    + b"|".join(b"(?P<n%d>%s)" % (i, _spelled(name)) for i, name in enumerate(_SEARCHED))
    + rb")(?=[\x00\t\n\x0c\r /<>\[\]()%{}])"
)
_GROUPS = {f"n{i}": what for i, what in enumerate(_SEARCHED.values())}
_SEARCH_CHUNK = 1024 * 1024
_OVERLAP = 64  # more than a name spelled all in escapes and its delimiter (/FileAttachment: 44)


def named_in_bytes(path: str) -> set[str]:
    """The active content a PDF's bytes name, read a chunk at a time (a name across two chunks
    found: each chunk overlaps the one before; the file's end delimits its last name)."""
    found: set[str] = set()
    with open(path, "rb") as source:
        tail = b""
        while True:
            chunk = source.read(_SEARCH_CHUNK)
            window = tail + chunk if chunk else tail + b"\n"
            for match in _NAMES_IN_BYTES.finditer(window):
                found.add(_GROUPS[str(match.lastgroup)])
            if not chunk:
                return found
            tail = window[-_OVERLAP:]
