"""What both databases' search queries share: the filters, the cursor's position, the hits and
their sort key, the caller's scope as SQL, and snippets' marks turned into highlights."""

from __future__ import annotations

import base64
import json
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from tortoise import connections
from tortoise.backends.base.client import BaseDBAsyncClient

from bff.patients.rules import Demographics
from bff.search.query import Kind, Query, Term

if TYPE_CHECKING:
    from bff.auth.sessions import Principal

# Marks around a match in a snippet, as the database writes it (control characters that
# text_rows removes from extracted text, and names cannot hold).
START, STOP = "\x02", "\x03"
_SPACE = re.compile(r"\s+")

# Tiers of the sort key: a file whose name matches comes first, then text matches by
# relevance, then files of a folder whose name matches. Within a tier, the score (lower is
# better: FTS5's bm25, PostgreSQL's rank negated) lies well inside +-TIER.
TIER = 1_000_000.0


def conn() -> BaseDBAsyncClient:
    """The default connection: the caller's transaction when it runs in one."""
    client: BaseDBAsyncClient = connections.get("default")
    return client


@dataclass(frozen=True)
class Filters:
    """What narrows a search besides the caller's scope (None: no narrowing)."""

    container_id: int | None = None
    folder_id: int | None = None
    extensions: tuple[str, ...] | None = None
    modified_from: datetime | None = None
    modified_before: datetime | None = None


@dataclass(frozen=True)
class Position:
    """Where a page of results starts: after the result with this key, time and file id."""

    key: float
    last_modified: datetime
    file_id: int

    def encode(self) -> str:
        """The opaque cursor of this position."""
        raw = json.dumps([self.key, self.last_modified.isoformat(), self.file_id])
        return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")

    @classmethod
    def decode(cls, cursor: str) -> Position | None:
        """The position of a cursor, or None if it is not one."""
        try:
            raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
            key, stamp, file_id = json.loads(raw)
            when = datetime.fromisoformat(stamp)
            if (
                isinstance(key, bool)
                or not isinstance(key, int | float)
                or not isinstance(file_id, int)
                or isinstance(file_id, bool)
                or when.tzinfo is None
                or not 0 < file_id < 2**31
                or abs(key) > 1e12
            ):
                return None
            return cls(float(key), when, file_id)
        except (ValueError, TypeError):
            return None


@dataclass(frozen=True)
class Hit:
    """A file that matched: where it is, its best page (text matches), and its snippet."""

    key: float
    file_id: int
    container: str
    folder: str
    name: str
    content_type: str
    last_modified: datetime
    page: int | None
    snippet: str
    highlights: list[tuple[int, int]]
    patient: Demographics  # the folder's patient (nothing known: every field None)


@dataclass(frozen=True)
class Found:
    """One page of hits, the total (a lower bound when capped) and whether more follow."""

    hits: list[Hit]
    total: int
    capped: bool
    more: bool


class Sql:
    """A statement under construction with its parameters (`?` each)."""

    def __init__(self) -> None:
        self.params: list[Any] = []

    def p(self, value: Any) -> str:
        """A placeholder for value."""
        self.params.append(value)
        return "?"


def scope_sql(sql: Sql, principal: Principal, filters: Filters, file: str) -> str:
    """Conditions on a files row (alias `file`) for the caller's scope and the filters."""
    conditions = [f"{file}.is_profile_image = {sql.p(False)}"]
    if not principal.is_admin:
        conditions.append(
            f"{file}.folder_id IN (SELECT folder_id FROM folder_assignments "
            f"WHERE user_id = {sql.p(principal.user_id)})"
        )
        # A held file (not scanned yet: bff/scan/) is the admins' only.
        conditions.append(f"{file}.scan_state <> {sql.p('held')}")
    if filters.folder_id is not None:
        conditions.append(f"{file}.folder_id = {sql.p(filters.folder_id)}")
    elif filters.container_id is not None:
        conditions.append(
            f"{file}.folder_id IN (SELECT id FROM folders "
            f"WHERE container_id = {sql.p(filters.container_id)})"
        )
    if filters.extensions is not None:
        marks = ", ".join(sql.p(e) for e in filters.extensions)
        conditions.append(f"{file}.extension IN ({marks})")
    if filters.modified_from is not None:
        conditions.append(f"{file}.last_modified >= {sql.p(filters.modified_from)}")
    if filters.modified_before is not None:
        conditions.append(f"{file}.last_modified < {sql.p(filters.modified_before)}")
    return " AND ".join(conditions)


def split(query: Query) -> tuple[list[Term], list[Term]]:
    """Terms for the stemmed index (words, phrases) and for the whole-word one (prefixes)."""
    stemmed = [t for t in query.terms if t.kind is not Kind.PREFIX]
    whole = [t for t in query.terms if t.kind is Kind.PREFIX]
    return stemmed, whole


# --- Snippets -------------------------------------------------------------------------------


def marked(text: str) -> tuple[str, list[tuple[int, int]]]:
    """Text with START/STOP marks as plain text (whitespace runs made one space) and the marked
    spans as [start, end) offsets in UTF-16 code units (what JavaScript's slice takes)."""
    text = _SPACE.sub(" ", text).strip()
    plain: list[str] = []
    spans: list[tuple[int, int]] = []
    units = 0
    start: int | None = None
    for char in text:
        if char == START:
            start = units if start is None else start
        elif char == STOP:
            if start is not None and units > start:
                if spans and spans[-1][1] == start:
                    spans[-1] = (spans[-1][0], units)  # one span for a marked phrase
                else:
                    spans.append((start, units))
            start = None
        else:
            plain.append(char)
            units += 2 if ord(char) > 0xFFFF else 1
    return "".join(plain), spans


def joined_spans(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Spans separated only by a space made one (a phrase reads as one highlight)."""
    joined: list[tuple[int, int]] = []
    for start, end in spans:
        if joined and text[joined[-1][1] : start] == " " and _bmp(text):
            joined[-1] = (joined[-1][0], end)
        else:
            joined.append((start, end))
    return joined


def _bmp(text: str) -> bool:
    return all(ord(c) <= 0xFFFF for c in text)


def marked_by_tokens(positive: Sequence[Term], name: str) -> str:
    """name with each token that a term's token matches (exactly, or as the prefix of a prefix
    term) marked, compared without accents or case as the names index compares them."""
    wanted: set[str] = set()
    prefixes: set[str] = set()
    for term in positive:
        for index, token in enumerate(term.tokens):
            base = _fold(token)
            last = index == len(term.tokens) - 1
            (prefixes if term.kind is Kind.PREFIX and last else wanted).add(base)
    out: list[str] = []
    position = 0
    for match in re.finditer(r"[^\W_]+", name):
        token = _fold(match.group())
        hit = token in wanted or any(token.startswith(p) for p in prefixes)
        out.append(name[position : match.start()])
        out.append(f"{START}{match.group()}{STOP}" if hit else match.group())
        position = match.end()
    out.append(name[position:])
    return "".join(out)


def _fold(token: str) -> str:
    decomposed = unicodedata.normalize("NFKD", token)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()
