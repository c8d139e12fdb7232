"""Tortoise ORM configuration, start-up and shutdown, and migrations."""

from __future__ import annotations

import asyncio
import fcntl
import os
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from contextlib import asynccontextmanager
from contextvars import ContextVar
from datetime import datetime
from typing import Any, TypeVar

import asyncpg  # type: ignore[import-untyped]
from tortoise import Tortoise, connections
from tortoise.backends.base.client import BaseDBAsyncClient
from tortoise.backends.base.config_generator import expand_db_url
from tortoise.exceptions import DBConnectionError
from tortoise.migrations.api.migrate import migrate as tortoise_migrate

from config.settings import Settings, load_settings

MODEL_MODULES = [
    "bff.users.models",
    "bff.auth.models",
    "bff.containers.models",
    "bff.assignments.models",
    "bff.audit.models",
    "bff.files.models",
    "bff.tokens.models",
    "bff.emergency.models",
    "bff.mfa.models",
    "bff.search.models",
    "bff.scan.models",
    "bff.oidc.models",
    "bff.jobs.models",
    "bff.intake.models",
    "bff.leases",
    "bff.throttle",
]


# Connections each process may hold on PostgreSQL (Tortoise's default, 5, queued requests
# behind the audit log's lock at load); `?maxsize=N` in BFF_DATABASE_URL overrides it.
POOL_SIZE = 20


# The connection to the database failed or was lost: the server is down, restarting (refusing
# connections, "starting up", "shutting down"), out of connection slots, or it ended ours
# (a restart's "terminating connection due to administrator command", a connection closed in
# the middle of an operation). A moment later a new connection may succeed, so such a failure
# is answered 503 with Retry-After (bff/errors.py), an idempotent request is tried again
# meanwhile (`retry_while_unreachable`), and the pooled connection it happened on is closed at
# once (`DroppingConnection`): no other request is handed a dead one. Tortoise passes these
# asyncpg errors through untranslated.
CONNECTION_FAILURES: tuple[type[Exception], ...] = (
    DBConnectionError,
    ConnectionError,  # refused, reset, broken pipe
    asyncpg.PostgresConnectionError,  # ConnectionDoesNotExistError and the rest of class 08
    asyncpg.AdminShutdownError,
    asyncpg.CrashShutdownError,
    asyncpg.CannotConnectNowError,
    asyncpg.TooManyConnectionsError,
    asyncpg.InterfaceError,  # "connection is closed", "released back to the pool"
    # The protocol's state is broken: the server ended the connection while it sat idle in the
    # pool and asyncpg had not yet read the end of its socket ("cannot switch to state 12;
    # another operation (2) is in progress").
    asyncpg.InternalClientError,
)


def connection_failed(exc: BaseException) -> bool:
    """Whether exc means the database connection failed (CONNECTION_FAILURES), not the query."""
    # asyncpg's DataError and ClientConfigurationError are InterfaceErrors about the query's
    # arguments or the settings (also ValueErrors): trying again cannot help.
    return isinstance(exc, CONNECTION_FAILURES) and not isinstance(exc, ValueError)


T = TypeVar("T")
RETRY_FIRST_PAUSE = 0.05  # seconds before the second attempt; each pause doubles, up to
RETRY_LONGEST_PAUSE = 0.4


# Set by `retry_while_unreachable` for its attempt: whether the attempt has written anything
# (`wrote`), after which running it again could do that twice.
_WROTE: ContextVar[list[bool] | None] = ContextVar("bff_wrote", default=None)


def wrote() -> None:
    """Note that the running request has written something that may stand (a transaction
    about to commit, an audit entry handed to the writer): it is not run again."""
    box = _WROTE.get()
    if box is not None:
        box[0] = True


async def retry_while_unreachable(attempt: Callable[[], Awaitable[T]], seconds: float) -> T:
    """attempt(), run again after growing pauses while the database connection fails, for up
    to `seconds` in all; then its last failure is raised. Only for work that is safe to repeat
    (a read): what failed on a lost connection was rolled back. An attempt that wrote (`wrote`:
    a GET that audits, or opens an emergency grant) is never run again: its failure is the
    answer."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    pause = RETRY_FIRST_PAUSE
    while True:
        box = [False]
        token = _WROTE.set(box)
        try:
            return await attempt()
        except Exception as exc:
            if not connection_failed(exc) or box[0] or loop.time() + pause > deadline:
                raise
        finally:
            _WROTE.reset(token)
        await asyncio.sleep(pause)
        pause = min(pause * 2, RETRY_LONGEST_PAUSE)


class DroppingConnection(asyncpg.Connection):  # type: ignore[misc]
    """asyncpg's connection, closed as soon as an operation on it fails as a connection.

    A connection the server ended (a restart) is only marked closed once asyncpg reads the end
    of its socket; returned to the pool before that, it was handed to the next request, which
    failed too ("another operation is in progress"). Terminated here at its first failure, the
    pool replaces it with a new connection at the next acquire. Every query Tortoise and this
    app send goes through these methods (transactions' BEGIN/COMMIT/ROLLBACK through
    `execute`).
    """

    async def execute(self, *args: Any, **kwargs: Any) -> Any:
        return await self._dropping(super().execute(*args, **kwargs))

    async def executemany(self, *args: Any, **kwargs: Any) -> Any:
        return await self._dropping(super().executemany(*args, **kwargs))

    async def fetch(self, *args: Any, **kwargs: Any) -> Any:
        return await self._dropping(super().fetch(*args, **kwargs))

    async def fetchrow(self, *args: Any, **kwargs: Any) -> Any:
        return await self._dropping(super().fetchrow(*args, **kwargs))

    async def fetchval(self, *args: Any, **kwargs: Any) -> Any:
        return await self._dropping(super().fetchval(*args, **kwargs))

    async def _dropping(self, operation: Awaitable[T]) -> T:
        try:
            return await operation
        except Exception as exc:
            if connection_failed(exc):
                self.terminate()  # the pool's holder is freed and opens a new one next time
            raise


def _db_url(url: str) -> str:
    # Tortoise names the asyncpg backend "postgres"; accept the usual spellings.
    for prefix in ("postgresql://", "asyncpg://"):
        if url.startswith(prefix):
            url = "postgres://" + url.removeprefix(prefix)
    if url.startswith("postgres://") and "maxsize=" not in url:
        url += ("&" if "?" in url else "?") + f"maxsize={POOL_SIZE}"
    return url


async def keep_session_state(connection: Any) -> None:
    """asyncpg's pool `reset`: nothing beyond what asyncpg always does (roll back a transaction
    left open).

    By default asyncpg sends `SELECT pg_advisory_unlock_all(); CLOSE ALL; UNLISTEN *;
    RESET ALL` each time a connection goes back to the pool, a round trip after every query
    (about 4.5% of the CPU at load, and 3 of the 10 round trips of a file view). This app
    never changes a session's state: no `SET` (only transaction-scoped settings), no
    session-level advisory lock (the audit chain's is `pg_advisory_xact_lock`), no `LISTEN`
    (live events go through Redis), no cursor outliving its transaction (the backup's own
    connection is not pooled). Keep it that way, or drop this reset.
    """


def _connection(database_url: str) -> str | dict[str, Any]:
    """The Tortoise connection for a URL: PostgreSQL's as a dict, for the pool's options that
    a URL cannot carry (`reset`, `connection_class`)."""
    url = _db_url(database_url)
    if not url.startswith("postgres://"):
        return url
    config: dict[str, Any] = expand_db_url(url)
    config["credentials"]["reset"] = keep_session_state
    config["credentials"]["connection_class"] = DroppingConnection
    return config


def tortoise_config(database_url: str) -> dict[str, Any]:
    """The Tortoise configuration for a database URL."""
    return {
        "connections": {"default": _connection(database_url)},
        "apps": {
            "bff": {
                "models": MODEL_MODULES,
                "migrations": "bff.migrations",
                "default_connection": "default",
            }
        },
        "use_tz": True,
        "timezone": "UTC",
    }


def __getattr__(name: str) -> Any:
    # `python -m tortoise -c bff.db.TORTOISE_ORM makemigrations` reads this lazily.
    if name == "TORTOISE_ORM":
        return tortoise_config(load_settings().database_url)
    raise AttributeError(name)


def dialect(conn: BaseDBAsyncClient | None = None) -> str:
    """The database's dialect ("sqlite" or "postgres") for repositories that differ by it."""
    return str((conn or connections.get("default")).capabilities.dialect)


async def fetch(
    sql: str, *params: Any, conn: BaseDBAsyncClient | None = None
) -> list[dict[str, Any]]:
    """Rows of a parameterised query on the default connection, as dicts.

    For the few reads on every request's path (sessions, permission checks, the caller's
    assignments), where building the query with the ORM costs more than running it. Write `?`
    for each parameter (never inside a literal); PostgreSQL's `$n` are filled in here. `conn`:
    a transaction's connection (default: the default connection).
    """
    conn = conn or connections.get("default")
    if dialect(conn) == "postgres":
        parts = sql.split("?")
        sql = "".join(f"{part}${n}" for n, part in enumerate(parts[:-1], 1)) + parts[-1]
    rows: list[dict[str, Any]] = await conn.execute_query_dict(sql, list(params))
    return rows


def as_datetime(value: datetime | str) -> datetime:
    """A timestamp column's value (SQLite returns text) as an aware datetime."""
    return value if isinstance(value, datetime) else datetime.fromisoformat(value)


async def init_db(settings: Settings) -> None:
    """Open the database connections for this process."""
    await Tortoise.init(config=tortoise_config(settings.database_url), _enable_global_fallback=True)


async def close_db() -> None:
    """Close the database connections."""
    await Tortoise.close_connections()


async def migrate(settings: Settings) -> None:
    """Apply every pending migration, one process at a time on a SQLite file."""
    # Model docstrings become SQL comments: Tortoise splits SQLite migrations on ';', so
    # docstrings of models must not contain one.
    async with _migrating_alone(settings):
        try:
            await tortoise_migrate(config=tortoise_config(settings.database_url))
        finally:
            await Tortoise.close_connections()


@asynccontextmanager
async def _migrating_alone(settings: Settings) -> AsyncIterator[None]:
    """Hold a lock beside the SQLite file (`<file>.migrating`) while migrating: a command
    started beside a server that is still migrating a fresh database (the demo just after the
    first `make run`) waits for it, then finds nothing left to do, where both would create the
    same tables and one fail. (PostgreSQL deployments migrate once, before their instances
    start: docs/operations.md.)"""
    path = settings.database_url.removeprefix("sqlite://")
    if not settings.is_sqlite or path == ":memory:":
        yield
        return
    fd = await asyncio.to_thread(_locked, f"{path}.migrating")
    try:
        yield
    finally:
        os.close(fd)  # releases the lock


def _locked(path: str) -> int:
    """A descriptor of the file at path, holding its exclusive lock (waits for it)."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)
    return fd


CommitHook = Callable[[], Coroutine[Any, Any, None]]
_BACKGROUND: set[asyncio.Task[None]] = set()
_ON_COMMIT: ContextVar[list[CommitHook] | None] = ContextVar("bff_on_commit", default=None)


@asynccontextmanager
async def transaction() -> AsyncIterator[Any]:
    """A database transaction on the default connection: `async with transaction() as conn`.

    Hooks registered with `on_commit` inside it run once the outermost transaction has
    committed, and never if it rolls back.
    """
    from tortoise.transactions import in_transaction

    outer = _ON_COMMIT.get()
    hooks: list[CommitHook] = [] if outer is None else outer
    token = _ON_COMMIT.set(hooks)
    try:
        async with in_transaction("default") as conn:
            if outer is None and dialect(conn) == "sqlite":
                await _write_lock(conn)
            yield conn
            wrote()  # from its COMMIT on, a lost connection may have left it committed
    finally:
        _ON_COMMIT.reset(token)
    if outer is None:
        for hook in hooks:
            await hook()


async def _write_lock(conn: BaseDBAsyncClient) -> None:
    """Make a SQLite transaction take the database's write lock at its start (`BEGIN
    IMMEDIATE`; Tortoise begins a deferred one).

    SQLite has no row locks (Tortoise drops FOR UPDATE): its one write lock is what serialises
    changes. Within a process Tortoise already runs one transaction at a time; across processes
    (the server and `storage reindex` or another command beside it) a deferred transaction that
    reads first and writes later fails at once ("database is locked") when another process
    wrote in between, where this one waits for the other to commit (up to sqlite3's 5 s busy
    timeout) and then reads what it committed: a folder's changes and a reindex of it never
    interleave."""
    await conn.execute_query("COMMIT")  # the deferred BEGIN, before any statement
    await conn.execute_query("BEGIN IMMEDIATE")


def in_transaction() -> bool:
    """Whether the caller runs inside `transaction()`."""
    return _ON_COMMIT.get() is not None


def on_commit(hook: CommitHook) -> None:
    """Run hook after the current transaction commits (at once when there is none)."""
    hooks = _ON_COMMIT.get()
    if hooks is None:
        task = asyncio.get_running_loop().create_task(hook())
        _BACKGROUND.add(task)  # keep a reference until it is done
        task.add_done_callback(_BACKGROUND.discard)
    else:
        hooks.append(hook)
