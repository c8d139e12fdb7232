"""SQLite's side of search (FTS5): the index's tables and triggers, the query of a caller's
matches and the snippets of the pages shown.

Two FTS5 tables read their text from search_texts (external content, kept in step by
triggers): `search_fts` (unicode61, diacritics removed) for exact words and prefixes and
`search_fts_en` (the same with the Porter stemmer) for words and phrases in any English form;
`search_names` and `search_folders` index file and folder names (triggers on files and
folders)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from bff.search.pieces import window
from bff.search.query import Kind, Query, Term
from bff.search.repository.shared import START, STOP, TIER, Filters, Sql, scope_sql, split

if TYPE_CHECKING:
    from bff.auth.sessions import Principal
    from bff.search.repository.reading import Reading

INDEX = [
    "CREATE VIRTUAL TABLE search_fts USING fts5(text, content='search_texts', "
    "content_rowid='id', tokenize='unicode61 remove_diacritics 2')",
    "CREATE VIRTUAL TABLE search_fts_en USING fts5(text, content='search_texts', "
    "content_rowid='id', tokenize='porter unicode61 remove_diacritics 2')",
    "CREATE VIRTUAL TABLE search_names USING fts5(name, tokenize='unicode61 remove_diacritics 2')",
    "CREATE VIRTUAL TABLE search_folders USING fts5(name, "
    "tokenize='unicode61 remove_diacritics 2')",
    *[
        statement
        for table in ("search_fts", "search_fts_en")
        for statement in (
            f"CREATE TRIGGER {table}_insert AFTER INSERT ON search_texts BEGIN "
            f"INSERT INTO {table}(rowid, text) VALUES (new.id, new.text); END",
            f"CREATE TRIGGER {table}_delete AFTER DELETE ON search_texts BEGIN "
            f"INSERT INTO {table}({table}, rowid, text) VALUES ('delete', old.id, old.text); END",
            f"CREATE TRIGGER {table}_update AFTER UPDATE OF text ON search_texts BEGIN "
            f"INSERT INTO {table}({table}, rowid, text) VALUES ('delete', old.id, old.text); "
            f"INSERT INTO {table}(rowid, text) VALUES (new.id, new.text); END",
        )
    ],
    *[
        statement
        for table, source in (("search_names", "files"), ("search_folders", "folders"))
        for statement in (
            f"CREATE TRIGGER {table}_insert AFTER INSERT ON {source} BEGIN "
            f"INSERT INTO {table}(rowid, name) VALUES (new.id, new.name); END",
            f"CREATE TRIGGER {table}_delete AFTER DELETE ON {source} BEGIN "
            f"DELETE FROM {table} WHERE rowid = old.id; END",
            f"CREATE TRIGGER {table}_update AFTER UPDATE OF name ON {source} BEGIN "
            f"DELETE FROM {table} WHERE rowid = old.id; "
            f"INSERT INTO {table}(rowid, name) VALUES (new.id, new.name); END",
        )
    ],
    # A match's file, page and content version without reading its row (a piece of text spans
    # several pages of the database): the join from the FTS5 scan stays in a small, cached
    # index. (Migration 0023 added version_id: without it each match read its whole row.)
    "CREATE INDEX search_texts_owner ON search_texts (id, file_id, page, version_id)",
    "INSERT INTO search_fts(search_fts) VALUES ('rebuild')",
    "INSERT INTO search_fts_en(search_fts_en) VALUES ('rebuild')",
    "INSERT INTO search_names(rowid, name) SELECT id, name FROM files",
    "INSERT INTO search_folders(rowid, name) SELECT id, name FROM folders",
]


def _fts_term(term: Term) -> str:
    phrase = '"' + " ".join(term.tokens) + '"'
    return phrase + " *" if term.kind is Kind.PREFIX else phrase


def _fts(terms: Sequence[Term]) -> str:
    """FTS5 syntax for terms all of which must match, built from their tokens alone."""
    return " AND ".join(_fts_term(t) for t in terms)


def _fts_any(terms: Sequence[Term]) -> str:
    return " OR ".join(_fts_term(t) for t in terms)


def _where(sql: Sql, table: str, terms: Sequence[Term]) -> str:
    """Conditions on table (in the FROM clause) for every positive term and no excluded one."""
    positive = [t for t in terms if not t.excluded]
    excluded = [t for t in terms if t.excluded]
    where = f"{table} MATCH {sql.p(_fts(positive))}"
    if excluded:
        where += f" AND {table}.rowid NOT IN (SELECT rowid FROM {table} WHERE {table} MATCH "
        where += f"{sql.p(_fts_any(excluded))})"
    return where


def _text_where(sql: Sql, query: Query) -> tuple[str, str]:
    """The FTS5 table to read search_texts' matches from (stems, unless the query has only
    prefixes) and the conditions on it, the other table's as subqueries."""
    stemmed, whole = split(query)
    tables = [("search_fts_en", stemmed), ("search_fts", whole)]
    main, main_terms = next((t, terms) for t, terms in tables if any(not x.excluded for x in terms))
    where = _where(sql, main, main_terms)
    for table, terms in tables:
        if table == main or not terms:
            continue
        if any(not t.excluded for t in terms):
            # `+`: the set filters the scan; it must not drive one MATCH per rowid.
            where += f" AND +{main}.rowid IN (SELECT {table}.rowid FROM {table} WHERE "
            where += f"{_where(sql, table, terms)})"
        else:
            where += f" AND {main}.rowid NOT IN (SELECT rowid FROM {table} WHERE {table} MATCH "
            where += f"{sql.p(_fts_any(terms))})"
    return main, where


def hits(sql: Sql, query: Query, principal: Principal, filters: Filters, cap: int) -> str:
    """The caller's matches (text pages, file names, folder names), at most cap + 1 of each."""
    # The FTS5 table is the join's outer loop (CROSS JOIN: SQLite keeps the order as written;
    # else it may start from the caller's files and run the MATCH once per row), and bm25 is
    # computed in the select list: only for rows in the caller's scope, at most MATCH_CAP + 1.
    main, where = _text_where(sql, query)
    text = (
        f"SELECT * FROM (SELECT t.file_id AS file_id, t.page AS page, t.id AS text_id, "
        f"{TIER} + bm25({main}) AS key FROM {main} "
        f"CROSS JOIN search_texts t ON t.id = {main}.rowid CROSS JOIN files f ON f.id = t.file_id "
        f"WHERE {where} AND t.version_id = f.version_id "
        f"AND {scope_sql(sql, principal, filters, 'f')} "
        f"LIMIT {sql.p(cap + 1)})"
    )
    names = (
        f"SELECT * FROM (SELECT f.id AS file_id, NULL AS page, NULL AS text_id, "
        f"bm25(search_names) AS key FROM search_names "
        f"CROSS JOIN files f ON f.id = search_names.rowid "
        f"WHERE {_where(sql, 'search_names', query.terms)} "
        f"AND {scope_sql(sql, principal, filters, 'f')} LIMIT {sql.p(cap + 1)})"
    )
    folders = (
        f"SELECT * FROM (SELECT f.id AS file_id, NULL AS page, NULL AS text_id, "
        f"{2 * TIER} AS key FROM search_folders "
        f"CROSS JOIN files f ON f.folder_id = search_folders.rowid "
        f"WHERE {_where(sql, 'search_folders', query.terms)} "
        f"AND {scope_sql(sql, principal, filters, 'f')} LIMIT {sql.p(cap + 1)})"
    )
    return f"{text} UNION ALL {names} UNION ALL {folders}"


async def text_snippets(
    reading: Reading, positive: Sequence[Term], text_ids: list[int]
) -> dict[int, str]:
    """The marked snippet of each piece of text (by id) around its best matches: FTS5 marks
    every match of the piece (highlight(), one pass over at most PIECE_CHARS), and the window
    of SNIPPET_WORDS words with the most is chosen here (FTS5's snippet() scores every window
    against every match: the square of the matches, 1.8 s for one 16 KB piece of one word)."""
    stemmed, whole = split(Query(tuple(positive)))
    table, terms = ("search_fts_en", stemmed) if stemmed else ("search_fts", whole)
    marks = ", ".join("?" for _ in text_ids)
    # A prefix is expanded each time the MATCH runs: with one, the rowids filter a single scan
    # (`+`) instead of running the MATCH once per row.
    rowid = "+rowid" if any(t.kind is Kind.PREFIX for t in terms) else "rowid"
    rows = await reading.fetch(
        f"SELECT rowid AS id, highlight({table}, 0, char(2), char(3)) AS marked "
        f"FROM {table} WHERE {table} MATCH ? AND {rowid} IN ({marks})",
        [_fts_any(terms), *text_ids],
    )
    return {int(r["id"]): window(str(r["marked"]), START, STOP) for r in rows}
