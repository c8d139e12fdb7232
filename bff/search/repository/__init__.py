"""The search index over search_texts and over file and folder names, and its queries: the one
place that knows which database answers. `sqlite` (FTS5) and `postgres` (tsvector + GIN) hold
each database's index and SQL; `shared` what both use; this module chooses between them.

Every query is scoped in SQL to the folders the caller may read (admins: all), like the
listings of bff/containers/repository.py, so neither a result, nor the total, nor a snippet
can come from another folder.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date
from types import ModuleType
from typing import TYPE_CHECKING, Any

from tortoise.backends.base.client import BaseDBAsyncClient

from bff.db import as_datetime, dialect, fetch
from bff.patients.rules import Demographics
from bff.search.pieces import pieces
from bff.search.query import Query
from bff.search.repository import postgres, sqlite
from bff.search.repository.reading import Readers, Reading, TooSlow
from bff.search.repository.shared import (
    START,
    STOP,
    TIER,
    Filters,
    Found,
    Hit,
    Position,
    Sql,
    conn,
    joined_spans,
    marked,
    marked_by_tokens,
)

if TYPE_CHECKING:
    from bff.auth.sessions import Principal

__all__ = [
    "MATCH_CAP",
    "START",
    "STOP",
    "TIER",
    "Filters",
    "Found",
    "Hit",
    "Position",
    "Readers",
    "Reading",
    "TooSlow",
    "index_statements",
    "insert_rows",
    "marked",
    "remove_text",
    "search",
    "text_rows",
]


# Matches (pages or names, in the caller's scope) counted and ranked at most: beyond it a query
# is too broad for ranking to help, and its cost would grow with the records (the total then
# says "more than"). Measured at 30,000 texts (docs/search.md): a member of staff's common word
# costs about 2.5x more at 1,000 than at 200.
MATCH_CAP = 200

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def index_statements(db_dialect: str) -> list[str]:
    """The statements that create the index (migration 0017), each run on its own."""
    return list(postgres.INDEX if db_dialect == "postgres" else sqlite.INDEX)


def _clean(text: str) -> str:
    return _CONTROL.sub(" ", text)


def text_rows(pages: Sequence[str]) -> list[tuple[int, int, str]]:
    """The rows that make pages (page 1 first) searchable: (page, piece, text), each page cut
    into pieces of at most PIECE_CHARS (bff/search/pieces.py); blank pages left out, control
    characters made spaces."""
    rows: list[tuple[int, int, str]] = []
    for number, page in enumerate(pages, 1):
        text = _clean(page)
        if text.strip():
            rows.extend((number, piece, part) for piece, part in enumerate(pieces(text), 1))
    return rows


async def insert_rows(
    file_id: int,
    version_id: str,
    rows: Sequence[tuple[int, int, str]],
    client_conn: BaseDBAsyncClient | None = None,
) -> None:
    """Add rows (text_rows') of the file's content `version_id` to the index."""
    client = client_conn or conn()
    for page, piece, text in rows:
        await fetch(
            "INSERT INTO search_texts (file_id, version_id, page, piece, text) "
            "VALUES (?, ?, ?, ?, ?)",
            file_id,
            version_id,
            page,
            piece,
            text,
            conn=client,
        )


async def remove_text(
    file_id: int, limit: int | None = None, client_conn: BaseDBAsyncClient | None = None
) -> int:
    """Forget the file's text (its name stays searchable while the file exists), or only
    `limit` of its rows (a bounded piece of work): how many rows went."""
    client = client_conn or conn()
    before = await fetch(
        "SELECT COUNT(*) AS n FROM search_texts WHERE file_id = ?", file_id, conn=client
    )
    if limit is None:
        await fetch("DELETE FROM search_texts WHERE file_id = ?", file_id, conn=client)
        return int(before[0]["n"])
    await fetch(
        "DELETE FROM search_texts WHERE id IN "
        "(SELECT id FROM search_texts WHERE file_id = ? LIMIT ?)",
        file_id,
        limit,
        conn=client,
    )
    return min(int(before[0]["n"]), limit)


# --- Queries ------------------------------------------------------------------------------


def _dialect() -> ModuleType:
    """The module of the database that answers: postgres or sqlite."""
    return postgres if dialect(conn()) == "postgres" else sqlite


def _best(on_pg: bool) -> str:
    """Each file once, at its best key (and that row's page and text)."""
    if on_pg:
        return (
            "SELECT DISTINCT ON (file_id) file_id, page, text_id, key FROM hits "
            "ORDER BY file_id, key, page"
        )
    return "SELECT file_id, page, text_id, MIN(key) AS key FROM hits GROUP BY file_id"


async def search(
    reading: Reading,
    principal: Principal,
    query: Query,
    filters: Filters,
    after: Position | None,
    limit: int,
) -> Found:
    """One page of the files the caller may read that match query, best first (ties: newest
    first), after `after`; with the total in scope. Every statement through `reading`
    (bff/search/repository/reading.py: the search's own connection and time budget)."""
    db = _dialect()
    sql = Sql()
    hits = db.hits(sql, query, principal, filters, MATCH_CAP)
    page_sql = (
        f"WITH hits AS MATERIALIZED ({hits}), best AS MATERIALIZED ({_best(db is postgres)}) "
        "SELECT b.key AS key, b.page AS page, b.text_id AS text_id, f.id AS file_id, "
        "f.name AS name, f.content_type AS content_type, f.last_modified AS last_modified, "
        "d.name AS folder, c.name AS container, d.patient_name AS patient_name, "
        "d.patient_birth_date AS patient_birth_date, "
        "d.patient_record_number AS patient_record_number, "
        "(SELECT COUNT(*) FROM best) AS total, (SELECT COUNT(*) FROM hits) AS matches "
        "FROM best b JOIN files f ON f.id = b.file_id JOIN folders d ON d.id = f.folder_id "
        "JOIN containers c ON c.id = d.container_id"
    )
    if after is not None:
        # Placeholders in the order they appear.
        page_sql += f" WHERE b.key > {sql.p(after.key)} OR (b.key = {sql.p(after.key)} AND "
        page_sql += f"(f.last_modified < {sql.p(after.last_modified)} OR "
        page_sql += f"(f.last_modified = {sql.p(after.last_modified)} AND "
        page_sql += f"f.id < {sql.p(after.file_id)})))"
    page_sql += f" ORDER BY b.key, f.last_modified DESC, f.id DESC LIMIT {sql.p(limit + 1)}"
    rows = await reading.fetch(page_sql, sql.params)
    more = len(rows) > limit
    rows = rows[:limit]
    if not rows:
        if after is None:
            return Found([], 0, False, False)
        total, capped = await _count(reading, principal, query, filters)
        return Found([], total, capped, False)
    total = int(rows[0]["total"])
    capped = int(rows[0]["matches"]) > MATCH_CAP
    snippets = await _snippets(reading, query, rows, db)
    found = [
        Hit(
            key=float(row["key"]),
            file_id=int(row["file_id"]),
            container=str(row["container"]),
            folder=str(row["folder"]),
            name=str(row["name"]),
            content_type=str(row["content_type"]),
            last_modified=as_datetime(row["last_modified"]),
            page=int(row["page"]) if row["page"] is not None else None,
            snippet=snippets[int(row["file_id"])][0],
            highlights=snippets[int(row["file_id"])][1],
            patient=_patient(row),
        )
        for row in rows
    ]
    return Found(found, total, capped, more)


def _patient(row: dict[str, Any]) -> Demographics:
    """The patient of a hit's folder (the caller may read the folder, so its patient too)."""
    born = row["patient_birth_date"]
    return Demographics(
        row["patient_name"],
        date.fromisoformat(born) if isinstance(born, str) else born,  # SQLite: text
        row["patient_record_number"],
    )


async def _count(
    reading: Reading, principal: Principal, query: Query, filters: Filters
) -> tuple[int, bool]:
    """The total and whether it is capped, for a page past the last result."""
    db = _dialect()
    sql = Sql()
    hits = db.hits(sql, query, principal, filters, MATCH_CAP)
    rows = await reading.fetch(
        f"WITH hits AS MATERIALIZED ({hits}) SELECT COUNT(DISTINCT file_id) AS total, "
        "COUNT(*) AS matches FROM hits",
        sql.params,
    )
    return int(rows[0]["total"]), int(rows[0]["matches"]) > MATCH_CAP


async def _snippets(
    reading: Reading, query: Query, rows: list[dict[str, Any]], db: ModuleType
) -> dict[int, tuple[str, list[tuple[int, int]]]]:
    """Each row's snippet by file id: text around the best match of its page, else its file
    name (or folder name) with the matches marked."""
    positive = query.positive
    out: dict[int, tuple[str, list[tuple[int, int]]]] = {}
    text_rows = {int(r["text_id"]): int(r["file_id"]) for r in rows if r["text_id"] is not None}
    if text_rows:
        marked_texts = await db.text_snippets(reading, positive, list(text_rows))
        for text_id, value in marked_texts.items():
            text, spans = marked(value)
            out[text_rows[text_id]] = (text, joined_spans(text, spans))
    for row in rows:
        file_id = int(row["file_id"])
        if file_id in out:
            continue
        key = float(row["key"])
        name = str(row["folder"]) if key >= 2 * TIER else str(row["name"])
        value = marked_by_tokens(positive, name)
        text, spans = marked(value)
        out[file_id] = (text, joined_spans(text, spans))
    return out
