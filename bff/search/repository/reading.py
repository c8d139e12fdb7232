"""Where a search reads, and for how long: each search's statements run within its time budget,
on a connection that nothing else waits for, at most SEARCHES_AT_ONCE searches at once per
process; a search past its budget, or whose client went away, is stopped in the database.

- SQLite: a process's requests and writes share Tortoise's one connection, one statement at a
  time. A search reads on connections of its own (WAL: a reader never blocks the writer, nor
  the writer it), read-only, each with a progress handler that stops the running statement
  once the search's deadline has passed or its request was cancelled (the statement also gets
  `interrupt()`, and its connection is closed rather than reused).
- PostgreSQL: a connection of Tortoise's pool, taken from asyncpg's pool directly within the
  deadline, for the search's one read-only transaction, each statement under `SET LOCAL
  statement_timeout` of what is left of the budget (the server cancels it); a cancelled request
  cancels its statement too (asyncpg sends the server a cancel request). The connection goes
  back to the pool however the search ends, a cancellation at any of its awaits included.
  (Not Tortoise's `in_transaction`: cancelled during its BEGIN, after it took the connection,
  it never gave it back: TransactionContextPooled.__aenter__ acquires, then awaits BEGIN, and
  its __aexit__ does not run when __aenter__ raises.)

Waiting for a turn and for a pooled connection counts against the budget. Past it: `TooSlow`,
and nothing is held.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import sqlite3
import time
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any, Protocol

import aiosqlite
import asyncpg  # type: ignore[import-untyped]
from tortoise import connections

from bff import metrics

log = logging.getLogger(__name__)

# Searches running at once in one process: each holds a connection (PostgreSQL: one of the
# pool's, which requests need too), and a search past these waits its turn within its budget.
SEARCHES_AT_ONCE = 2
# SQLite virtual machine instructions between two looks at the deadline (a look costs a
# Python call: about a microsecond; 1,000 instructions take some tens of microseconds). FTS5's
# own work counts too (it reads its index through statements and blob handles of its own): a
# MATCH of four 3-letter prefixes over 2 million words looked every 30-130 ms.
PROGRESS_STEPS = 1000
# Seconds a pooled PostgreSQL connection may take to go back (its cancelled statement's cancel
# request answered, its transaction rolled back); past them asyncpg closes it, and the pool
# opens a new one when needed.
RELEASE_SECONDS = 10.0


class TooSlow(Exception):
    """The search did not end within its time budget (it was stopped, nothing is held)."""


class Reading(Protocol):
    """One search's reads, within its deadline."""

    async def fetch(self, sql: str, params: Sequence[Any]) -> list[dict[str, Any]]:
        """The rows of a statement (`?` placeholders), as dicts."""


class _Deadline:
    """When the statement running on a SQLite connection must stop (time.monotonic())."""

    def __init__(self) -> None:
        self.at = math.inf

    def passed(self) -> int:
        # SQLite's progress handler: non-zero stops the statement ("interrupted").
        return 1 if time.monotonic() >= self.at else 0


class _SqliteConnection:
    """A read-only connection of this process to the database file, with its deadline."""

    def __init__(self, connection: aiosqlite.Connection, deadline: _Deadline) -> None:
        self.connection = connection
        self.deadline = deadline
        self.is_open = True
        metrics.search_connections(1)

    @classmethod
    async def open(cls, path: str) -> _SqliteConnection:
        # A reader waits at most a moment for a lock (WAL: only while the log is reset).
        # (Cancelled while connecting, aiosqlite stops its thread itself.)
        connection = await aiosqlite.connect(path, timeout=1.0)
        opened = cls(connection, _Deadline())
        try:
            connection.row_factory = sqlite3.Row
            await connection.execute("PRAGMA query_only = 1")
            await connection.set_progress_handler(opened.deadline.passed, PROGRESS_STEPS)
        except BaseException:  # a request that went away meanwhile: nothing left open
            await asyncio.shield(opened.close())
            raise
        return opened

    async def close(self) -> None:
        """Close the connection: once the statement its thread runs has ended (aiosqlite runs
        the close after it, in that thread)."""
        if not self.is_open:
            return
        self.is_open = False
        try:
            with contextlib.suppress(Exception):  # a connection already broken
                await self.connection.close()
        finally:
            metrics.search_connections(-1)


class _SqliteReading:
    def __init__(self, connection: _SqliteConnection) -> None:
        self.connection = connection
        self.broken = False  # cancelled mid-statement: the connection is not reused

    async def fetch(self, sql: str, params: Sequence[Any]) -> list[dict[str, Any]]:
        deadline = self.connection.deadline
        if time.monotonic() >= deadline.at:
            raise TooSlow
        try:
            rows = await self.connection.connection.execute_fetchall(sql, list(params))
        except asyncio.CancelledError:
            # The request went away: stop the statement its thread is still running.
            deadline.at = -math.inf
            self.broken = True
            with contextlib.suppress(Exception):
                await asyncio.shield(self.connection.connection.interrupt())
            raise
        except sqlite3.OperationalError as exc:
            if "interrupt" in str(exc) and time.monotonic() >= deadline.at:
                raise TooSlow from None
            raise
        return [dict(row) for row in rows]


class _PostgresReading:
    def __init__(self, conn: Any, deadline: float) -> None:
        self.conn = conn
        self.deadline = deadline

    async def fetch(self, sql: str, params: Sequence[Any]) -> list[dict[str, Any]]:
        left = self.deadline - asyncio.get_running_loop().time()
        if left <= 0:
            raise TooSlow
        # A number, never a value a client gave: SET takes no placeholder. A search's best plan
        # depends on its values: planned for them every time (asyncpg prepares each statement,
        # and after five runs PostgreSQL may keep one plan for any values; measured with
        # bench/search_bench.py: 10 ms with the values, 60 ms and more without). `SET LOCAL`
        # holds for this transaction only: the pooled connection keeps no state (bff/db.py
        # keep_session_state). Both in one round trip.
        await self.conn.execute(
            f"SET LOCAL statement_timeout = {max(1, int(left * 1000))}; "
            "SET LOCAL plan_cache_mode = force_custom_plan"
        )
        parts = sql.split("?")
        numbered = "".join(f"{part}${n}" for n, part in enumerate(parts[:-1], 1)) + parts[-1]
        try:
            rows = await self.conn.fetch(numbered, *params)
        except asyncpg.QueryCanceledError:
            raise TooSlow from None
        return [dict(row) for row in rows]


async def _release(pool: Any, conn: Any) -> None:
    """Give a search's connection back to the pool, however its search ended. asyncpg shields
    the release (it runs to its end even if this task is cancelled again), rolls back a
    transaction left open (a BEGIN that was cancelled), and closes a connection it cannot
    reset: either way the pool has the connection's place back."""
    with contextlib.suppress(Exception):
        await pool.release(conn, timeout=RELEASE_SECONDS)


async def _pool() -> Any:
    """The asyncpg pool of Tortoise's default connection (created at its first use)."""
    client: Any = connections.get("default")
    client = getattr(client, "_parent", client)  # inside a transaction: the pool's owner
    if client._pool is None:
        await client.acquire_connection().ensure_connection()
    return client._pool


class Readers:
    """A process's searches' reads: at most SEARCHES_AT_ONCE at once, each within its budget."""

    def __init__(self, database_url: str, at_once: int = SEARCHES_AT_ONCE) -> None:
        # The file Tortoise opens (relative to the working directory), without its options.
        self._sqlite = (
            database_url.removeprefix("sqlite://").partition("?")[0]
            if database_url.startswith("sqlite://")
            else None
        )
        self._at_once = at_once
        self._turns: asyncio.Semaphore | None = None
        self._idle: list[_SqliteConnection] = []
        self._closed = False

    def _semaphore(self) -> asyncio.Semaphore:
        if self._turns is None:
            self._turns = asyncio.Semaphore(self._at_once)
        return self._turns

    @asynccontextmanager
    async def reading(self, seconds: float) -> AsyncIterator[Reading]:
        """A search's reads, for at most `seconds` from now, waiting for a turn included
        (TooSlow past them)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + seconds
        turns = self._semaphore()
        try:
            async with asyncio.timeout_at(deadline):
                await turns.acquire()
        except TimeoutError:
            raise TooSlow from None
        metrics.searches_running(1)
        try:
            if self._sqlite is not None:
                async with self._sqlite_reading(deadline) as reading:
                    yield reading
            else:
                async with self._postgres_reading(deadline) as reading:
                    yield reading
        finally:
            turns.release()
            metrics.searches_running(-1)

    @asynccontextmanager
    async def _sqlite_reading(self, deadline: float) -> AsyncIterator[Reading]:
        assert self._sqlite is not None
        connection = self._idle.pop() if self._idle else await _SqliteConnection.open(self._sqlite)
        # loop.time() is time.monotonic() (the default event loop's clock): one deadline.
        connection.deadline.at = deadline
        reading = _SqliteReading(connection)
        try:
            yield reading
        finally:
            connection.deadline.at = math.inf
            if reading.broken or self._closed:
                await asyncio.shield(connection.close())
            else:
                self._idle.append(connection)

    @asynccontextmanager
    async def _postgres_reading(self, deadline: float) -> AsyncIterator[Reading]:
        pool = await _pool()
        try:
            # asyncpg's acquire gives the connection back when it is cancelled (by the deadline
            # or the request's end), whichever await it was at.
            async with asyncio.timeout_at(deadline):
                conn = await pool.acquire()
        except TimeoutError:
            raise TooSlow from None
        async with contextlib.AsyncExitStack() as held:
            held.push_async_callback(_release, pool, conn)
            try:
                async with asyncio.timeout_at(deadline):
                    # Read only. Its end (commit, or rollback on any exception) waits for a
                    # cancelled statement's cancel request to be answered.
                    await held.enter_async_context(conn.transaction(readonly=True))
            except TimeoutError:
                raise TooSlow from None
            yield _PostgresReading(conn, deadline)

    async def aclose(self) -> None:
        """Close the idle connections (when the app stops)."""
        self._closed = True
        idle, self._idle = self._idle, []
        for connection in idle:
            await connection.close()
