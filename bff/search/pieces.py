"""A page's text cut into bounded pieces, the rows search indexes, and a snippet's window chosen
from a marked piece. Pure, so both are tested without a database.

Why pieces: the cost of showing a match grows with its row's length (SQLite FTS5's snippet()
with the square of the matches in the row: 99 s for one 2 MB text file, one row, holding the
database; PostgreSQL's ts_headline reads the whole row). A text file or Word document is one
page of up to 2,000,000 characters, so a page longer than PIECE_CHARS is stored as several
rows, each read in full at most once per search. Pieces overlap by OVERLAP_CHARS, more than the
longest query, so a phrase across a cut is whole in the next piece. A search's words must then
all be found within one piece (about five printed pages of a long text), as they must be within
one page of a PDF.
"""

from __future__ import annotations

import bisect
import re

from bff.search.query import MAX_QUERY_LENGTH

PIECE_CHARS = 16_000
OVERLAP_CHARS = MAX_QUERY_LENGTH + 56  # a phrase of the longest query, with its spaces
SNIPPET_WORDS = 32  # words of a snippet around its matches

_SPACE = re.compile(r"\s")
_WORDS = re.compile(r"\S+")


def pieces(text: str) -> list[str]:
    """text cut into pieces of at most PIECE_CHARS characters, at a line's end or a space when
    there is one in the piece's last part, each starting OVERLAP_CHARS (at a space) before the
    previous one's end."""
    if len(text) <= PIECE_CHARS:
        return [text]
    out: list[str] = []
    start = 0
    while len(text) - start > PIECE_CHARS:
        end = start + PIECE_CHARS
        cut = text.rfind("\n", start + PIECE_CHARS * 3 // 4, end) + 1
        if cut <= start:
            cut = _last_space(text, start + PIECE_CHARS // 2, end)
        if cut <= start:
            cut = end  # one word longer than half a piece: cut inside it
        out.append(text[start:cut])
        space = _SPACE.search(text, cut - OVERLAP_CHARS, cut)
        start = space.end() if space is not None else cut
    out.append(text[start:])
    return out


def _last_space(text: str, low: int, high: int) -> int:
    """The index after the last whitespace character in text[low:high], or -1."""
    for index in range(high - 1, low - 1, -1):
        if text[index].isspace():
            return index + 1
    return -1


def window(marked: str, start_mark: str, stop_mark: str, words: int = SNIPPET_WORDS) -> str:
    """The `words` words of a marked text (matches between start_mark and stop_mark) that hold
    the most different matches (then the most matches; the first such), with '…' where text was
    left out: a snippet in one pass over the piece, whatever its number of matches."""
    tokens = _WORDS.findall(marked)
    if len(tokens) <= words:
        return " ".join(tokens)
    # Which match each word holds (its text between marks, folded), if any.
    held: list[str | None] = []
    inside = False
    for token in tokens:
        found: list[str] = []
        piece = ""
        for char in token:
            if char == start_mark:
                inside, piece = True, ""
            elif char == stop_mark:
                if inside and piece:
                    found.append(piece.casefold())
                inside = False
            elif inside:
                piece += char
        if inside and piece:
            found.append(piece.casefold())  # a match that runs on into the next word
        held.append(found[0] if found else None)
    counts: dict[str, int] = {}
    marked_words = 0

    def add(index: int, step: int) -> None:
        nonlocal marked_words
        match = held[index]
        if match is not None:
            marked_words += step
            counts[match] = counts.get(match, 0) + step
            if counts[match] == 0:
                del counts[match]

    for index in range(words):
        add(index, 1)
    scores = [(len(counts), marked_words)]
    for first in range(1, len(tokens) - words + 1):
        add(first - 1, -1)
        add(first + words - 1, 1)
        scores.append((len(counts), marked_words))
    # Of the windows that score best, the one whose first match is nearest a quarter of the way
    # in (some words of context before it), then the first.
    top = max(scores)
    matches = [i for i, match in enumerate(held) if match is not None]

    def lead(first: int) -> int:
        at = bisect.bisect_left(matches, first)
        offset = matches[at] - first if at < len(matches) else 0
        return abs(offset - words // 4)

    best = min((i for i, score in enumerate(scores) if score == top), key=lead)
    shown = " ".join(tokens[best : best + words])
    if start_mark in shown and stop_mark not in shown.rpartition(start_mark)[2]:
        shown += stop_mark  # a match cut at the window's end stays closed
    return ("…" if best > 0 else "") + shown + ("…" if best + words < len(tokens) else "")
