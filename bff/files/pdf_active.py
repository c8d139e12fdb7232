"""What active content a PDF holds (issue 49's review): every object qpdf reads of it (pikepdf),
those inside compressed object streams too, its names as qpdf decodes them (`/J#61vaScript` is
/JavaScript). Run in a worker process by bff/files/previews.py `pdf_findings`, which also
searches the file's bytes (`named_in_bytes`, the names' `#xx` escapes decoded): that search
adds findings, it never stands in for the walk.

Every object is looked at, not only the places a reader starts from (the names tree, an
/OpenAction, a document's, page's, annotation's or field's /AA, an action's /Next, an outline
item): an action anywhere is found. An object's text as qpdf writes it (the objects written
inside it included) is searched first for the names a finding needs (or an /S, /Subtype or
/Type given by reference: an indirect /Launch); only the few that name one are walked entry by
entry. Found:

- JAVASCRIPT: an action dictionary with /S /JavaScript or a /JS entry (a /Rendition action's
  too), the names tree's /JavaScript, a 3D artwork's /OnInstantiate script, and an XFA form's
  scripts (`<script>` in its XML, decoded by qpdf: predictors applied);
- LAUNCH: an action with /S /Launch;
- EMBEDDED: an embedded file stream (/Type /EmbeddedFile), a file specification holding one
  (/EF), the names tree's /EmbeddedFiles, a /FileAttachment or /RichMedia annotation (whose
  content is embedded files).

Not flagged: links (/URI, /GoTo, /GoToR), /SubmitForm and /ImportData actions: they run no code
in the reader, and the portal's viewer renders pages as images, so no action of a PDF runs
there at all.

Fails closed: whatever cannot be looked at makes the PDF `Unchecked` (never passed as checked;
bff/files/content.py refuses it or keeps it flagged as not checked): a file qpdf cannot open
even with its recovery of damaged files ("unreadable": e.g. cut before its `startxref`, whose
trailer lives in an xref stream qpdf's recovery does not use), one protected by a password
("password"), an object in use that qpdf cannot read (it raises, or qpdf warns of an object
it could not read and gives null for it: an object stream exhausting memory) ("unreadable"),
more than MAX_OBJECTS objects or objects naming active content with more than MAX_ITEMS
entries ("large"), an XFA form of more than XFA_BYTES decoded ("form"), a walk past its
deadline ("slow").
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
    ("/OnInstantiate", JAVASCRIPT),  # a 3D stream's script, run when the artwork loads
)
# What qpdf warns when it could not read an object (it then reads as null).
_UNREADABLE_WARNINGS = re.compile(r"error reading object|bad_alloc|object stream", re.IGNORECASE)


class Unchecked(Exception):
    """The walk could not look at everything: `reason` is "slow" (past its deadline), "large"
    (over MAX_OBJECTS or MAX_ITEMS), "form" (an XFA form over XFA_BYTES decoded), "password"
    (it needs one) or "unreadable" (qpdf cannot open it, or an object in use cannot be read, or
    an XFA form's part cannot be decoded); `found` what was found before."""

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
    """A stream's decoded data as qpdf decodes it (predictors applied); Unchecked ("form")
    when it is more than limit bytes. Flate alone is decompressed a piece at a time, so a small
    stream cannot expand past the limit in memory; other filters by qpdf, within the worker's
    memory."""
    filters = stream.get("/Filter")
    if isinstance(filters, pikepdf.Array) and len(filters) == 1:
        filters = filters[0]
    plain_flate = isinstance(filters, pikepdf.Name) and str(filters) == "/FlateDecode"
    if plain_flate and stream.get("/DecodeParms") is None:
        inflate = zlib.decompressobj()
        try:
            data = inflate.decompress(stream.read_raw_bytes(), limit + 1)
        except zlib.error:
            data = stream.read_bytes()  # qpdf reads what zlib alone does not (a cut stream)
    else:
        data = stream.read_bytes()
    if len(data) > limit:
        raise Unchecked("form", set())
    return data


def _xfa_scripts(form: pikepdf.Object) -> bool:
    """Whether an AcroForm's XFA (one stream, or an array of names and streams) has scripts:
    all of it searched (Unchecked past XFA_BYTES decoded, or a part qpdf cannot decode)."""
    xfa = form.get("/XFA")
    streams = [xfa] if isinstance(xfa, pikepdf.Stream) else []
    if isinstance(xfa, pikepdf.Array):
        streams = [part for part in xfa if isinstance(part, pikepdf.Stream)]
    text = b""
    for stream in streams:  # one XML document cut in pieces: a tag may span two
        try:
            text += _stream_text(stream, XFA_BYTES - len(text))
        except pikepdf.PdfError:
            raise Unchecked("unreadable", set()) from None
    return _XFA_SCRIPT.search(text) is not None


# The names every finding needs in an object's text as qpdf writes it (names decoded, objects
# written inside it included): only the objects naming one are walked entry by entry.
_CANDIDATE = re.compile(
    rb"/(?:JavaScript|JS|Launch|EmbeddedFiles?|EF|FileAttachment|RichMedia|XFA|OnInstantiate)"
    rb"(?=[\x00\t\n\x0c\r /<>\[\]()%{}]|$)"
    # A type given by reference (/S 7 0 R): the name it refers to is read when walked.
    rb"|/(?:S|Subtype|Type) \d+ \d+ R"
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


def _unreadable_warning(pdf: pikepdf.Pdf) -> bool:
    return any(_UNREADABLE_WARNINGS.search(str(warning)) for warning in pdf.get_warnings())


def named_in_objects(path: str, deadline: float) -> set[str]:
    """What active content a PDF's objects hold; Unchecked when they cannot all be looked at
    (the module's list; deadline a time.monotonic() value)."""
    # What qpdf raises on hostile input is not always a PdfError: whatever it is (but memory
    # running out, which the worker pool reports), what it stopped is not looked at.
    try:
        pdf = pikepdf.open(path, inherit_page_attributes=False)  # qpdf's recovery included
    except MemoryError:
        raise
    except pikepdf.PasswordError:
        raise Unchecked("password", set()) from None
    except Exception:  # noqa: BLE001 (see above)
        raise Unchecked("unreadable", set()) from None
    found: set[str] = set()
    items = 0
    with pdf:
        try:
            objects = list(pdf.get_xref_table().items())
        except MemoryError:
            raise
        except Exception:  # noqa: BLE001 (as above)
            raise Unchecked("unreadable", found) from None
        if len(objects) > MAX_OBJECTS:
            raise Unchecked("large", found)
        for number, (objgen, entry) in enumerate(objects):
            if entry.type == 0:  # a free entry
                continue
            if number % 256 == 0 and time.monotonic() > deadline:
                raise Unchecked("slow", found)
            try:
                top = pdf.get_object(objgen)
                if top is None:  # null: written so, or unreadable (qpdf warns then: below)
                    continue
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
            except Exception:  # noqa: BLE001 (an object qpdf cannot read: not looked at)
                raise Unchecked("unreadable", found) from None
            found |= held
            items += used
        if _unreadable_warning(pdf):
            raise Unchecked("unreadable", found)
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
