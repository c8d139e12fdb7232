"""PostgreSQL's side of search: the index (search_texts.tsv, a generated tsvector of the text
in two configurations, `bff_english`: unaccent + English stems, then `bff_simple`: unaccent +
whole words, under a GIN index; GIN expression indexes over file and folder names), the query
of a caller's matches and the snippets (ts_headline) of the pages shown."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from bff.search.query import Kind, Term
from bff.search.repository.shared import START, TIER, Filters, Sql, scope_sql

if TYPE_CHECKING:
    from bff.auth.sessions import Principal
    from bff.search.query import Query
    from bff.search.repository.reading import Reading

# Characters PostgreSQL's parser would keep inside a token (file names, hosts, versions:
# "letter.pdf", "e.coli", "smith-jones") and FTS5 splits at: made separators before indexing,
# so both databases split text the same way.
SEPARATORS = "._/-@:+"
_SPACES = " " * len(SEPARATORS)


def vector(config: str, column: str) -> str:
    spaced = f"translate({column}, '{SEPARATORS}', '{_SPACES}')"
    return f"to_tsvector('{config}'::regconfig, {spaced})"


INDEX = [
    # A trusted extension: the database's owner may create it (PostgreSQL 13+).
    "CREATE EXTENSION IF NOT EXISTS unaccent",
    # Dropped first: a restore with --force drops the tables, not these (nothing uses them
    # then), and migrates again.
    "DROP TEXT SEARCH CONFIGURATION IF EXISTS bff_simple",
    "DROP TEXT SEARCH CONFIGURATION IF EXISTS bff_english",
    "CREATE TEXT SEARCH CONFIGURATION bff_simple (COPY = simple)",
    "ALTER TEXT SEARCH CONFIGURATION bff_simple ALTER MAPPING FOR hword, hword_part, word "
    "WITH unaccent, simple",
    "CREATE TEXT SEARCH CONFIGURATION bff_english (COPY = english)",
    "ALTER TEXT SEARCH CONFIGURATION bff_english ALTER MAPPING FOR hword, hword_part, word "
    "WITH unaccent, english_stem",
    # One vector, English stems then whole words (`||` moves the second's positions past the
    # first's, so a phrase never spans the two).
    "ALTER TABLE search_texts ADD COLUMN tsv tsvector GENERATED ALWAYS AS ("
    f"{vector('bff_english', 'text')} || {vector('bff_simple', 'text')}) STORED",
    "CREATE INDEX search_texts_tsv ON search_texts USING GIN (tsv)",
    f"CREATE INDEX files_name_search ON files USING GIN ({vector('bff_simple', 'name')})",
    f"CREATE INDEX folders_name_search ON folders USING GIN ({vector('bff_simple', 'name')})",
]


def _term(sql: Sql, term: Term, config: str) -> str:
    """A tsquery for one term, from its tokens (letters and digits only: no tsquery syntax)."""
    if term.kind is Kind.PREFIX:
        # Whole words only: a stemmed prefix ("runn" -> "runn") would miss "running" ("run").
        text = " <-> ".join(term.tokens) + ":*"
        return f"to_tsquery('bff_simple', {sql.p(text)})"
    return f"phraseto_tsquery('{config}', {sql.p(' '.join(term.tokens))})"


def _query(sql: Sql, terms: Sequence[Term], config: str) -> str:
    parts = []
    for term in terms:
        part = _term(sql, term, config)
        parts.append(f"(!! {part})" if term.excluded else part)
    return "(" + " && ".join(parts) + ")"


def hits(sql: Sql, query: Query, principal: Principal, filters: Filters, cap: int) -> str:
    """The caller's matches (text pages, file names, folder names), at most cap + 1 of each."""
    text_query = _query(sql, query.terms, "bff_english")
    text = (
        f"SELECT * FROM (SELECT t.file_id AS file_id, t.page AS page, t.id AS text_id, "
        f"{TIER} - ts_rank(t.tsv, {text_query})::float8 AS key "
        f"FROM search_texts t JOIN files f ON f.id = t.file_id "
        f"WHERE t.tsv @@ {_query(sql, query.terms, 'bff_english')} "
        f"AND t.version_id = f.version_id AND {scope_sql(sql, principal, filters, 'f')} "
        f"LIMIT {sql.p(cap + 1)}) x"
    )
    names_vector = vector("bff_simple", "f.name")
    names_query = _query(sql, query.terms, "bff_simple")
    names = (
        f"SELECT * FROM (SELECT f.id AS file_id, NULL::int AS page, NULL::int AS text_id, "
        f"-ts_rank({names_vector}, {names_query})::float8 AS key FROM files f "
        f"WHERE {names_vector} @@ {_query(sql, query.terms, 'bff_simple')} "
        f"AND {scope_sql(sql, principal, filters, 'f')} LIMIT {sql.p(cap + 1)}) y"
    )
    folders_vector = vector("bff_simple", "d.name")
    folders = (
        f"SELECT * FROM (SELECT f.id AS file_id, NULL::int AS page, NULL::int AS text_id, "
        f"{2 * TIER}::float8 AS key FROM folders d JOIN files f ON f.folder_id = d.id "
        f"WHERE {folders_vector} @@ {_query(sql, query.terms, 'bff_simple')} "
        f"AND {scope_sql(sql, principal, filters, 'f')} LIMIT {sql.p(cap + 1)}) z"
    )
    return f"{text} UNION ALL {names} UNION ALL {folders}"


_HEADLINE = (
    'StartSel="\x02", StopSel="\x03", MaxWords=32, MinWords=12, ShortWord=2, '
    'MaxFragments=1, FragmentDelimiter=" … "'
)


# Characters of a piece ts_headline reads first. It parses the whole text it is given (each word
# through unaccent and the English stemmer), and pieces hold up to 16 KB: reading 20 whole
# pieces costs 2-3 ms a result, most of a broad query's time (docs/search.md), up to 35 ms for
# a piece of one short word repeated. The window starts shortly before the first place the
# query's first word appears as typed (a cheap substring search), else at the piece's start; a
# piece whose window holds no match is read whole (bounded: PIECE_CHARS).
HEADLINE_WINDOW = 3000


async def text_snippets(
    reading: Reading, positive: Sequence[Term], text_ids: list[int]
) -> dict[int, str]:
    """The marked snippet of each piece of text (by id) around its best match: within a window
    of HEADLINE_WINDOW characters around the query's first word when a match is there, else in
    the whole piece (at most PIECE_CHARS: bff/search/pieces.py)."""
    found = await _headlines(reading, positive, text_ids, windowed=True)
    unmarked = [i for i in text_ids if i in found and START not in found[i]]
    if unmarked:
        found.update(await _headlines(reading, positive, unmarked, windowed=False))
    return found


def _window() -> str:
    """SQL for the part of page t's text ts_headline reads, cut at spaces (no half word to match
    or show), with s.start its first character."""
    size = HEADLINE_WINDOW
    return (
        f"CASE WHEN length(t.text) <= {size} THEN t.text ELSE regexp_replace(regexp_replace("
        f"substr(t.text, s.start, {size}), CASE WHEN s.start > 1 THEN '^\\S*' ELSE '^' END, ''), "
        f"'\\S+$', '') END"
    )


async def _headlines(
    reading: Reading, positive: Sequence[Term], text_ids: list[int], *, windowed: bool
) -> dict[int, str]:
    sql = Sql()  # placeholders in the order they appear
    parts = [_term(sql, t, "bff_english") for t in positive]
    either = "(" + " || ".join(parts) + ")"
    options = sql.p(_HEADLINE)
    source, start = "t.text", ""
    if windowed:
        first = positive[0].tokens[0] if positive and positive[0].tokens else ""
        source = _window()
        start = (
            f"CROSS JOIN LATERAL (SELECT greatest(1, strpos(lower(t.text), {sql.p(first)}) - "
            f"{HEADLINE_WINDOW // 3}) AS start) s"
        )
    marks = ", ".join(sql.p(i) for i in text_ids)
    rows = await reading.fetch(
        f"SELECT t.id AS id, ts_headline('bff_english', {source}, {either}, {options}) AS snippet "
        f"FROM search_texts t {start} WHERE t.id IN ({marks})",
        sql.params,
    )
    return {int(r["id"]): str(r["snippet"]) for r in rows}
