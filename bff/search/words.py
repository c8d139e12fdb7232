"""Each page's words with their boxes, for the viewer's text layer, highlights and find (issue
50): read in the text job's worker (bff/search/extract.py) from a PDF's text layer (pdfium's
characters grouped into words at whitespace) or from tesseract's TSV word boxes, kept compactly
per page (`page_words`, bff/search/jobs.py), and matched against a query as search matches it
(bff/search/query.py's tokens, case- and accent-insensitive). Pure but for pdfium's calls, so
grouping, boxes and matching are tested without a database. Matching is bounded for a find's
deadline: a word's first MAX_WORD_TOKENS tokens, each distinct token folded once, a term looked
for only where its first token is, and the deadline checked as it goes (TimeUp).

A box is (x0, y0, x1, y1) in fractions of the page as it is shown (a PDF's crop box, turned by
its rotation, as pdfium renders it; an image as the browser shows it, upright), origin top-left,
kept as integers out of SCALE. A page's words are stored as compact JSON,
`[["text", x0, y0, x1, y1], ...]`, in reading order.
"""

from __future__ import annotations

import ctypes
import json
import math
import time
import unicodedata
from collections.abc import Iterable, Sequence
from typing import Any

from bff.search.query import Kind, Query, Term, tokens

SCALE = 10_000  # a box's coordinates are kept in 1/SCALE of the page
MAX_PAGE_WORDS = 20_000  # a page's words kept at most (a dense A4 page has about 1,000)
MAX_WORD_CHARS = 200  # a longer run without a space (a line of dashes, a URL) is cut
MAX_PAGE_JSON = 1_000_000  # a page's stored words, in characters of JSON, at most
MAX_FILE_JSON = 16_000_000  # a file's, all pages: past it later pages have no words
MAX_FIND_MATCHES = 1000  # find answers at most this many matches (and says it stopped)
MAX_WORD_TOKENS = 32  # a word's tokens matched at most (a URL has about 10)
CHECK_EVERY = 1024  # words or candidates matched between two looks at a find's deadline

Box = tuple[float, float, float, float]  # left, bottom, right, top in PDF units
Word = tuple[str, int, int, int, int]  # text, x0, y0, x1, y1 out of SCALE, origin top-left


# --- Reading (in the worker) ----------------------------------------------------------------


def _breaks(char: str) -> bool:
    """Whether a character ends a word (whitespace, or a control character pdfium emits)."""
    return char.isspace() or ord(char) < 32 or char == "\ufffe"


def _clean(text: str) -> str:
    """A word's text: surrogate pairs joined (pdfium gives UTF-16 units), lone ones replaced,
    at most MAX_WORD_CHARS."""
    joined = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return joined[:MAX_WORD_CHARS]


def group(chars: Iterable[tuple[str, Box | None]]) -> list[tuple[str, Box]]:
    """Characters (with their boxes in PDF units, None when they have none) grouped into words
    at whitespace: each word's text and the union of its characters' boxes. Boxes without area
    (a character pdfium placed nowhere) take no part in the union; a word none of whose
    characters has a box is left out."""
    words: list[tuple[str, Box]] = []
    text: list[str] = []
    box: list[float] | None = None

    def close() -> None:
        nonlocal box
        if text and box is not None:
            word = _clean("".join(text))
            if word.strip():
                words.append((word, (box[0], box[1], box[2], box[3])))
        text.clear()
        box = None

    for char, char_box in chars:
        if _breaks(char):
            close()
            continue
        text.append(char)
        if char_box is None:
            continue
        left, bottom, right, top = char_box
        if right <= left and top <= bottom:
            continue
        if box is None:
            box = [left, bottom, right, top]
        else:
            box[0], box[1] = min(box[0], left), min(box[1], bottom)
            box[2], box[3] = max(box[2], right), max(box[3], top)
    close()
    return words


def _quantised(x0: float, y0: float, x1: float, y1: float) -> tuple[int, int, int, int] | None:
    """A box in fractions (any corners) as integers out of SCALE, clamped to the page; None
    when nothing of it is on the page."""
    left, right = sorted((x0, x1))
    top, bottom = sorted((y0, y1))
    if right <= 0 or bottom <= 0 or left >= 1 or top >= 1:
        return None

    def q(value: float) -> int:
        return min(SCALE, max(0, round(value * SCALE)))

    return q(left), q(top), q(right), q(bottom)


def pdf_words(page: Any, textpage: Any) -> list[Word]:
    """A PDF page's words (pypdfium2's page and its text page) with boxes as the page is shown:
    pdfium's own mapping from the page's units to its rendering (FPDF_PageToDevice: the crop
    box's origin, the bottom-left origin turned top-left, the page's rotation), the one its
    pictures are rendered by."""
    import pypdfium2.raw as raw

    count = min(textpage.count_chars(), MAX_PAGE_WORDS * 16)
    chars: list[tuple[str, Box | None]] = []
    for index in range(count):
        code = raw.FPDFText_GetUnicode(textpage.raw, index)
        char = chr(code) if 0 < code < 0x110000 else " "
        box = None if _breaks(char) else textpage.get_charbox(index, loose=True)
        chars.append((char, box))
    x, y = ctypes.c_int(), ctypes.c_int()

    def shown(px: float, py: float) -> tuple[float, float]:
        raw.FPDF_PageToDevice(
            page.raw, 0, 0, SCALE, SCALE, 0, px, py, ctypes.byref(x), ctypes.byref(y)
        )
        return x.value / SCALE, y.value / SCALE

    words: list[Word] = []
    for text, (left, bottom, right, top) in group(chars):
        corner = shown(left, top)
        other = shown(right, bottom)
        box = _quantised(corner[0], corner[1], other[0], other[1])
        if box is not None:
            words.append((text, *box))
            if len(words) >= MAX_PAGE_WORDS:
                break
    return words


def tsv_words(tsv: str, width: int, height: int) -> list[Word]:
    """The words of tesseract's TSV output (level 5 rows, in its reading order: block,
    paragraph, line) with boxes as fractions of the image it read (width x height pixels)."""
    words: list[Word] = []
    if width <= 0 or height <= 0:
        return words
    for line in tsv.splitlines()[1:]:
        columns = line.split("\t")
        if len(columns) < 12 or columns[0] != "5":
            continue
        text = _clean(columns[11].strip())
        if not text:
            continue
        try:
            left, top, w, h = (int(value) for value in columns[6:10])
        except ValueError:
            continue
        box = _quantised(left / width, top / height, (left + w) / width, (top + h) / height)
        if box is not None:
            words.append((text, *box))
            if len(words) >= MAX_PAGE_WORDS:
                break
    return words


def encoded(words: Sequence[Word], room: int = MAX_PAGE_JSON) -> str:
    """A page's words as compact JSON, the first ones that fit in `room` characters."""
    parts: list[str] = []
    size = 2
    for word in words:
        part = json.dumps(list(word), ensure_ascii=False, separators=(",", ":"))
        if size + len(part) + 1 > room:
            break
        parts.append(part)
        size += len(part) + 1
    return "[" + ",".join(parts) + "]"


def decoded(stored: str) -> list[Word]:
    """A page's stored words (encoded's JSON)."""
    return [(str(w[0]), int(w[1]), int(w[2]), int(w[3]), int(w[4])) for w in json.loads(stored)]


# --- Matching ---------------------------------------------------------------------------------


def fold(token: str) -> str:
    """A token without its accents (its letters' combining marks), as search compares them."""
    parts = unicodedata.normalize("NFD", token)
    return unicodedata.normalize("NFC", "".join(c for c in parts if not unicodedata.combining(c)))


class TimeUp(Exception):
    """A find's time ran out (its deadline, time.monotonic()) before the page was matched."""


def _check(deadline: float) -> None:
    if time.monotonic() >= deadline:
        raise TimeUp


def _stream(words: Sequence[Word], deadline: float) -> list[tuple[str, int]]:
    """The page's tokens in order, each folded, with the index of the word it is in; at most
    MAX_WORD_TOKENS of a word (a 200-character "a.a.a..." is 100 tokens), each distinct token
    folded once."""
    folded: dict[str, str] = {}
    stream: list[tuple[str, int]] = []
    for index, word in enumerate(words):
        if index % CHECK_EVERY == 0:
            _check(deadline)
        for token in tokens(word[0])[:MAX_WORD_TOKENS]:
            found = folded.get(token)
            if found is None:
                found = folded[token] = fold(token)
            stream.append((found, index))
    return stream


def _positions(stream: Sequence[tuple[str, int]]) -> dict[str, list[int]]:
    """Where each distinct token is in the stream."""
    where: dict[str, list[int]] = {}
    for position, (token, _) in enumerate(stream):
        where.setdefault(token, []).append(position)
    return where


def _occurrences(
    term: Term,
    stream: Sequence[tuple[str, int]],
    where: dict[str, list[int]],
    deadline: float,
) -> list[tuple[int, int]]:
    """[start, end) word spans where the term's tokens are found next to each other: looked for
    only where its first token is (every token starting with it, for a one-token prefix)."""
    wanted = [fold(token) for token in term.tokens]
    last = len(wanted) - 1
    prefix = term.kind is Kind.PREFIX
    if prefix and last == 0:
        starts = sorted(
            position
            for token, positions in where.items()
            if token.startswith(wanted[0])
            for position in positions
        )
    else:
        starts = where.get(wanted[0], [])
    spans: list[tuple[int, int]] = []
    for count, start in enumerate(starts):
        if count % CHECK_EVERY == 0:
            _check(deadline)
        if start + last >= len(stream):
            break
        for offset in range(1, last + 1):
            found = stream[start + offset][0]
            token = wanted[offset]
            if not (found == token or (prefix and offset == last and found.startswith(token))):
                break
        else:
            spans.append((stream[start][1], stream[start + last][1] + 1))
    return spans


def page_matches(
    query: Query, words: Sequence[Word], deadline: float = math.inf
) -> list[tuple[int, int]]:
    """The [start, end) word spans of a page that match, as search matches a page: none unless
    every term of the query is on it and no excluded one; then each term's occurrences, in word
    order, overlapping ones left out (the earlier, then the longer, kept). TimeUp once
    time.monotonic() reaches deadline (checked every CHECK_EVERY words or candidates)."""
    if not query.positive:
        return []
    stream = _stream(words, deadline)
    where = _positions(stream)
    spans: list[tuple[int, int]] = []
    for term in query.excluded:
        if _occurrences(term, stream, where, deadline):
            return []
    for term in query.positive:
        found = _occurrences(term, stream, where, deadline)
        if not found:
            return []
        spans += found
    kept: list[tuple[int, int]] = []
    for start, end in sorted(set(spans), key=lambda span: (span[0], -span[1])):
        if not kept or start >= kept[-1][1]:
            kept.append((start, end))
    return kept


def document_matches(
    query: Query, pages: Sequence[tuple[int, str]], room: int, deadline: float
) -> tuple[list[tuple[int, int, int]], bool]:
    """The (page, start, end) matches of these stored pages (`encoded`), in page then word
    order, up to room of them (and one more, to say there are more), and whether the deadline
    (time.monotonic(), the same clock in every process) came first: then those of the pages
    matched before it. Run in the find's worker process (bff/search/text_layer.py)."""
    out: list[tuple[int, int, int]] = []
    for page, stored in pages:
        try:
            found = page_matches(query, decoded(stored), deadline)
        except TimeUp:
            return out, True
        for start, end in found:
            out.append((page, start, end))
            if len(out) > room:
                return out, False
    return out, False
