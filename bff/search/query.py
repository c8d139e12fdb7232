"""The search box's syntax, parsed without a database: words (all must match), "a phrase",
-excluded, prefix*; anything else is taken as words. Pure, so every input is safe to parse.

Terms carry only tokens (runs of letters and digits, split as SQLite's unicode61 tokenizer
splits them), never the person's punctuation: bff/search/repository/ builds each database's
query syntax from these tokens, so FTS5's operators and column filters or a tsquery's never
reach the database raw.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from enum import Enum

MAX_QUERY_LENGTH = 200
MAX_TERMS = 16  # more words than a person types; bounds the SQL built from them
# A prefix is looked up across the whole vocabulary and its matches merged: a short one matches
# most of it (16 two-letter prefixes took 2.5-3.4 s at 30,000 texts). Checked by the service,
# which refuses a query past them with a 400 that says why.
MIN_PREFIX = 3
MAX_PREFIXES = 4

# A token: letters and digits (no underscore), as FTS5's unicode61 and the PostgreSQL
# configurations (after bff/search/repository/postgres.py's separators) split text.
_TOKEN = re.compile(r"[^\W_]+")


class Kind(Enum):
    """How a term matches."""

    WORD = "word"  # a word (several tokens when it holds punctuation: e.coli is "e coli")
    PHRASE = "phrase"  # these tokens next to each other, in order
    PREFIX = "prefix"  # the last token is a prefix of the text's


@dataclass(frozen=True)
class Term:
    """One term of a query: its tokens, how they match, and whether it excludes."""

    kind: Kind
    tokens: tuple[str, ...]
    excluded: bool = False


@dataclass(frozen=True)
class Query:
    """A parsed query: the terms a match must have and those it must not."""

    terms: tuple[Term, ...]

    @property
    def positive(self) -> tuple[Term, ...]:
        """The terms every match must have."""
        return tuple(t for t in self.terms if not t.excluded)

    @property
    def excluded(self) -> tuple[Term, ...]:
        """The terms no match may have."""
        return tuple(t for t in self.terms if t.excluded)

    @property
    def prefixes(self) -> tuple[Term, ...]:
        """The prefix terms (`cardio*`)."""
        return tuple(t for t in self.terms if t.kind is Kind.PREFIX)


def tokens(text: str) -> tuple[str, ...]:
    """The lower-case tokens of text (NFC, so a decomposed accent stays on its letter)."""
    return tuple(_TOKEN.findall(unicodedata.normalize("NFC", text).casefold()))


def _chunk(chunk: str, excluded: bool = False) -> Term | None:
    """A whitespace-separated chunk of the query as a term, or None if it has no token."""
    while chunk.startswith("-"):
        excluded = True
        chunk = chunk[1:]
    prefix = chunk.endswith("*")
    found = tokens(chunk)
    if not found:
        return None
    return Term(Kind.PREFIX if prefix else Kind.WORD, found, excluded)


def parse(text: str) -> Query:
    """The terms of a query as a person typed it; never fails (unbalanced quotes, a lone
    '-', operators and punctuation are taken as words or dropped)."""
    parts = text.split('"')
    if len(parts) % 2 == 0:  # an odd number of quotes: the last one opens nothing
        parts[-2:] = [parts[-2] + " " + parts[-1]]
    terms: list[Term] = []
    for index, part in enumerate(parts):
        if index % 2 == 1:  # inside quotes: a phrase
            before = parts[index - 1]
            excluded = before.endswith("-") and (len(before) == 1 or before[-2].isspace())
            found = tokens(part)
            if found:
                terms.append(Term(Kind.PHRASE if len(found) > 1 else Kind.WORD, found, excluded))
            continue
        chunks = part.split()
        if index + 1 < len(parts) and chunks and part.endswith("-") and chunks[-1] == "-":
            chunks = chunks[:-1]  # the '-' excluding the phrase that follows
        for chunk in chunks:
            term = _chunk(chunk)
            if term is not None:
                terms.append(term)
    unique = list(dict.fromkeys(terms))
    return Query(tuple(unique[:MAX_TERMS]))
