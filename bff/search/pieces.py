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

import itertools
import re

from bff.search.query import MAX_QUERY_LENGTH

PIECE_CHARS = 16_000
OVERLAP_CHARS = MAX_QUERY_LENGTH + 56  # a phrase of the longest query, with its spaces
SNIPPET_WORDS = 32  # words of a snippet around its matches
WINDOW_CHARS = 240  # about SNIPPET_WORDS words of prose: where the matches are counted
# Matches of a piece a window is chosen among (the first ones): a 16 KB piece of one short word
# holds 8,000, and each costs the event loop a Python step (20 such pieces a page of results).
WINDOW_MATCHES = 256

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
    """About `words` words of a marked text (matches between start_mark and stop_mark) around
    its best place: the stretch of WINDOW_CHARS holding the most different matches (then the
    most matches; the first such), starting a little before its first match, with '…' where
    text was left out. Linear in the piece, whatever its number of matches."""
    if len(marked) <= WINDOW_CHARS:
        return " ".join(marked.split())
    pattern = re.compile(
        f"{re.escape(start_mark)}([^{re.escape(stop_mark)}]*){re.escape(stop_mark)}"
    )
    spans = [
        (m.start(), m.end(), m.group(1).casefold())
        for m in itertools.islice(pattern.finditer(marked), WINDOW_MATCHES)
    ]
    begin = 0
    if spans:
        # Two pointers over the matches: the window starting at match i holds i..last.
        counts: dict[str, int] = {}
        last = 0
        best, best_score = 0, (0, 0)
        for i, (start, _, _) in enumerate(spans):
            while last < len(spans) and spans[last][1] <= start + WINDOW_CHARS:
                counts[spans[last][2]] = counts.get(spans[last][2], 0) + 1
                last += 1
            score = (len(counts), last - i)
            if score > best_score:
                best, best_score = i, score
            key = spans[i][2]
            counts[key] -= 1
            if not counts[key]:
                del counts[key]
        begin = max(0, spans[best][0] - WINDOW_CHARS // 5)
        # Not inside an earlier match, nor inside a word.
        opened = marked.rfind(start_mark, 0, begin)
        if opened != -1 and marked.rfind(stop_mark, opened, begin) == -1:
            begin = opened
        space = max(marked.rfind(" ", 0, begin), marked.rfind("\n", 0, begin))
        begin = space + 1 if space != -1 else 0
    chosen = [m.group() for m in itertools.islice(_WORDS.finditer(marked, begin), words + 1)]
    more = len(chosen) > words
    shown = " ".join(chosen[:words])
    if shown.count(start_mark) > shown.count(stop_mark):
        shown += stop_mark  # a match cut at the window's end stays closed
    return ("…" if begin > 0 else "") + shown + ("…" if more else "")
