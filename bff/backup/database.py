"""The database side of a snapshot: a portable, typed dump of every table, read from one
consistent point in time, and its load into another database of either dialect.

Tables, columns, foreign keys and sequences are read from the database's own catalog, never
from a list here, so a table a later migration adds is backed up and restored unchanged.

Source snapshots: SQLite is copied with its online backup API (one consistent copy, made while
the server keeps writing) and the copy is read; PostgreSQL is read in one REPEATABLE READ,
READ ONLY transaction (the snapshot `pg_dump` itself uses). Values go out as JSON of a few
type families (int, bool, float, decimal, text, timestamp, date, bytes, json, uuid) and come
back converted to the target column's type, so SQLite <-> PostgreSQL both work. Sequences (the
last id each table issued) are kept, so ids of deleted rows are never issued again.
"""

from __future__ import annotations

import asyncio
import base64
import sqlite3
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from contextlib import asynccontextmanager, closing
from dataclasses import dataclass
from datetime import UTC, date, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

MIGRATIONS_TABLE = "tortoise_migrations"  # the schema version: recorded, never dumped
ROWS_PER_FETCH = 1000

Query = Callable[..., Awaitable[list[dict[str, Any]]]]


@dataclass(frozen=True)
class Table:
    """A table as the catalog describes it."""

    name: str
    columns: tuple[tuple[str, str], ...]  # (name, type family)
    parents: frozenset[str]  # tables its foreign keys point at
    serial: str | None  # the column a sequence fills (SQLite: AUTOINCREMENT's), if any


def _sqlite_family(declared: str) -> str:
    t = declared.upper()
    for marker, family in (
        ("BOOL", "bool"),
        ("INT", "int"),
        ("TIMESTAMP", "timestamp"),
        ("DATETIME", "timestamp"),
        ("DATE", "date"),
        ("CHAR", "text"),
        ("TEXT", "text"),
        ("CLOB", "text"),
        ("JSON", "json"),
        ("BLOB", "bytes"),
        ("REAL", "float"),
        ("FLOA", "float"),
        ("DOUB", "float"),
        ("DEC", "decimal"),
        ("NUMERIC", "decimal"),
        ("UUID", "uuid"),
    ):
        if marker in t:
            return family
    return "text" if t else "bytes"


_PG_FAMILIES = {
    "int2": "int",
    "int4": "int",
    "int8": "int",
    "bool": "bool",
    "timestamptz": "timestamp",
    "timestamp": "timestamp",
    "date": "date",
    "varchar": "text",
    "text": "text",
    "bpchar": "text",
    "float4": "float",
    "float8": "float",
    "numeric": "decimal",
    "bytea": "bytes",
    "json": "json",
    "jsonb": "json",
    "uuid": "uuid",
}


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


async def sqlite_tables(query: Query) -> list[Table]:
    """Every table of a SQLite database (query: plain SQL -> rows as dicts)."""
    # Ordinary tables only: a virtual table (search's FTS5 index) and its shadow tables are
    # derived from ordinary ones, and their triggers build them again as rows are loaded.
    names = await query(
        "SELECT name FROM pragma_table_list WHERE schema = 'main' AND type = 'table' "
        "AND name NOT LIKE 'sqlite_%' ORDER BY name"
    )
    tables = []
    for (name,) in (tuple(r.values()) for r in names):
        if name == MIGRATIONS_TABLE:
            continue
        columns = await query(f"PRAGMA table_info({_quote(name)})")
        keys = await query(f"PRAGMA foreign_key_list({_quote(name)})")
        sql = (await query("SELECT sql FROM sqlite_master WHERE name = ?", name))[0]["sql"]
        pks = [c["name"] for c in columns if c["pk"]]
        serial = pks[0] if len(pks) == 1 and "AUTOINCREMENT" in str(sql).upper() else None
        tables.append(
            Table(
                name,
                tuple((c["name"], _sqlite_family(str(c["type"] or ""))) for c in columns),
                frozenset(str(k["table"]) for k in keys) - {name},
                serial,
            )
        )
    return tables


async def postgres_tables(query: Query) -> list[Table]:
    """Every table of the PostgreSQL schema in use."""
    columns = await query(
        "SELECT c.table_name, c.column_name, c.udt_name, c.column_default, c.is_identity "
        "FROM information_schema.columns c JOIN information_schema.tables t "
        "ON t.table_schema = c.table_schema AND t.table_name = c.table_name "
        "WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE' "
        # A generated column (search's tsvector) is computed again as its row is loaded.
        "AND c.is_generated = 'NEVER' "
        "ORDER BY c.table_name, c.ordinal_position"
    )
    keys = await query(
        "SELECT cl.relname AS child, pa.relname AS parent FROM pg_constraint k "
        "JOIN pg_class cl ON cl.oid = k.conrelid JOIN pg_class pa ON pa.oid = k.confrelid "
        "JOIN pg_namespace n ON n.oid = cl.relnamespace "
        "WHERE k.contype = 'f' AND n.nspname = current_schema()"
    )
    parents: dict[str, set[str]] = {}
    for key in keys:
        parents.setdefault(key["child"], set()).add(key["parent"])
    by_table: dict[str, list[dict[str, Any]]] = {}
    for column in columns:
        by_table.setdefault(column["table_name"], []).append(column)
    tables = []
    for name, cols in sorted(by_table.items()):
        if name == MIGRATIONS_TABLE:
            continue
        unknown = [c["column_name"] for c in cols if c["udt_name"] not in _PG_FAMILIES]
        if unknown:
            raise ValueError(f"Column type of {name}.{unknown[0]} is not supported by backup.")
        serial = next(
            (
                c["column_name"]
                for c in cols
                if str(c["column_default"] or "").startswith("nextval(")
                or c["is_identity"] == "YES"
            ),
            None,
        )
        tables.append(
            Table(
                name,
                tuple((c["column_name"], _PG_FAMILIES[c["udt_name"]]) for c in cols),
                frozenset(parents.get(name, set())) - {name},
                serial,
            )
        )
    return tables


def load_order(tables: Iterable[Table]) -> list[Table]:
    """Tables parents first (by their foreign keys), so rows insert without deferring checks."""
    pending = {t.name: t for t in tables}
    ordered: list[Table] = []
    while pending:
        ready = sorted(n for n, t in pending.items() if not (t.parents & pending.keys()))
        if not ready:
            raise ValueError(f"Foreign keys form a cycle among {sorted(pending)}.")
        ordered += [pending.pop(n) for n in ready]
    return ordered


def encode(value: Any) -> Any:
    """A column value as JSON."""
    if isinstance(value, datetime):
        return value.isoformat(sep=" ")
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, Decimal | uuid.UUID):
        return str(value)
    if isinstance(value, bytes | bytearray | memoryview):
        return {"b64": base64.b64encode(bytes(value)).decode()}
    return value


def _timestamp(value: Any) -> datetime:
    stamp = value if isinstance(value, datetime) else datetime.fromisoformat(str(value))
    return stamp if stamp.tzinfo else stamp.replace(tzinfo=UTC)


def decode(value: Any, family: str, dialect: str) -> Any:
    """A JSON value as the target column (of family, on dialect) takes it."""
    if value is None:
        return None
    if isinstance(value, dict) and "b64" in value:
        value = base64.b64decode(value["b64"])
    pg = dialect == "postgres"
    converters: dict[str, Callable[[Any], Any]] = {
        "int": int,
        "bool": (lambda v: bool(v)) if pg else (lambda v: int(bool(v))),
        "float": float,
        "decimal": Decimal if pg else str,
        "text": str,
        "json": str,
        "timestamp": _timestamp if pg else (lambda v: _timestamp(v).isoformat(sep=" ")),
        "date": (lambda v: date.fromisoformat(str(v)[:10])) if pg else (lambda v: str(v)[:10]),
        "uuid": (lambda v: uuid.UUID(str(v))) if pg else str,
        "bytes": bytes,
    }
    return converters[family](value)


class SourceSnapshot:
    """One consistent read of a database: its tables, their rows, sequences and plain queries."""

    dialect: str

    async def tables(self) -> list[Table]:
        raise NotImplementedError

    def rows(self, table: Table) -> AsyncIterator[list[tuple[Any, ...]]]:
        """The table's rows, ROWS_PER_FETCH at a time."""
        raise NotImplementedError

    async def query(self, sql: str, *params: Any) -> list[dict[str, Any]]:
        raise NotImplementedError

    async def sequences(self, tables: list[Table]) -> dict[str, int]:
        """The last id each table's sequence issued."""
        raise NotImplementedError

    async def migrations(self) -> list[str]:
        """The applied migrations, oldest first ('app.name')."""
        rows = await self.query(
            f"SELECT app, name FROM {MIGRATIONS_TABLE} ORDER BY applied_at, app, name"  # noqa: S608
        )
        return [f"{r['app']}.{r['name']}" for r in rows]


class _SqliteSource(SourceSnapshot):
    dialect = "sqlite"

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db
        db.row_factory = sqlite3.Row

    async def query(self, sql: str, *params: Any) -> list[dict[str, Any]]:
        return [dict(row) for row in self.db.execute(sql, params).fetchall()]

    async def tables(self) -> list[Table]:
        return await sqlite_tables(self.query)

    async def rows(self, table: Table) -> AsyncIterator[list[tuple[Any, ...]]]:
        names = ", ".join(_quote(c) for c, _ in table.columns)
        cursor = self.db.execute(f"SELECT {names} FROM {_quote(table.name)}")  # noqa: S608
        while batch := cursor.fetchmany(ROWS_PER_FETCH):
            yield [tuple(row) for row in batch]
            await asyncio.sleep(0)

    async def sequences(self, tables: list[Table]) -> dict[str, int]:
        rows = await self.query("SELECT name, seq FROM sqlite_sequence")
        return {str(r["name"]): int(r["seq"]) for r in rows if r["name"] != MIGRATIONS_TABLE}


class _PostgresSource(SourceSnapshot):
    dialect = "postgres"

    def __init__(self, conn: Any) -> None:
        self.conn = conn

    async def query(self, sql: str, *params: Any) -> list[dict[str, Any]]:
        parts = sql.split("?")
        sql = "".join(f"{p}${n}" for n, p in enumerate(parts[:-1], 1)) + parts[-1]
        return [dict(row) for row in await self.conn.fetch(sql, *params)]

    async def tables(self) -> list[Table]:
        return await postgres_tables(self.query)

    async def rows(self, table: Table) -> AsyncIterator[list[tuple[Any, ...]]]:
        names = ", ".join(_quote(c) for c, _ in table.columns)
        sql = f"SELECT {names} FROM {_quote(table.name)}"  # noqa: S608
        batch: list[tuple[Any, ...]] = []
        async for row in self.conn.cursor(sql, prefetch=ROWS_PER_FETCH):
            batch.append(tuple(row))
            if len(batch) >= ROWS_PER_FETCH:
                yield batch
                batch = []
        if batch:
            yield batch

    async def sequences(self, tables: list[Table]) -> dict[str, int]:
        issued = {}
        for table in tables:
            if table.serial is None:
                continue
            seq = await self.conn.fetchval(
                "SELECT pg_get_serial_sequence($1, $2)", _quote(table.name), table.serial
            )
            if seq:
                row = await self.conn.fetchrow(f"SELECT last_value, is_called FROM {seq}")  # noqa: S608
                issued[table.name] = int(row["last_value"]) if row["is_called"] else 0
        return issued


def postgres_dsn(url: str) -> str:
    """A database URL as asyncpg takes it (Tortoise's pool parameters removed)."""
    parts = urlsplit(url)
    query = [(k, v) for k, v in parse_qsl(parts.query) if k not in ("maxsize", "minsize")]
    return urlunsplit(("postgresql", parts.netloc, parts.path, urlencode(query), ""))


@asynccontextmanager
async def consistent_snapshot(database_url: str, scratch: Path) -> AsyncIterator[SourceSnapshot]:
    """A consistent, read-only view of the database at one instant, while others keep writing.

    SQLite: the online backup API copies it into scratch (a local folder) first.
    """
    if database_url.startswith("sqlite://"):
        copy = scratch / "database.sqlite3"
        path = database_url.removeprefix("sqlite://")
        with (
            closing(sqlite3.connect(path, timeout=30)) as live,
            closing(sqlite3.connect(copy)) as db,
        ):
            live.backup(db)
            yield _SqliteSource(db)
        copy.unlink(missing_ok=True)
        return
    import asyncpg  # type: ignore[import-untyped]

    conn = await asyncpg.connect(postgres_dsn(database_url))
    try:
        async with conn.transaction(isolation="repeatable_read", readonly=True):
            yield _PostgresSource(conn)
    finally:
        await conn.close()
