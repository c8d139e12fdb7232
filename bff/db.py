"""Tortoise ORM configuration, start-up and shutdown, and migrations."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Coroutine
from contextlib import asynccontextmanager
from contextvars import ContextVar
from datetime import datetime
from typing import Any

from tortoise import Tortoise, connections
from tortoise.backends.base.client import BaseDBAsyncClient
from tortoise.backends.base.config_generator import expand_db_url
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
    "bff.leases",
]


# Connections each process may hold on PostgreSQL (Tortoise's default, 5, queued requests
# behind the audit log's lock at load); `?maxsize=N` in BFF_DATABASE_URL overrides it.
POOL_SIZE = 20


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
    a URL cannot carry (`reset`)."""
    url = _db_url(database_url)
    if not url.startswith("postgres://"):
        return url
    config: dict[str, Any] = expand_db_url(url)
    config["credentials"]["reset"] = keep_session_state
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
    """Apply every pending migration."""
    # Model docstrings become SQL comments: Tortoise splits SQLite migrations on ';', so
    # docstrings of models must not contain one.
    try:
        await tortoise_migrate(config=tortoise_config(settings.database_url))
    finally:
        await Tortoise.close_connections()


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
            yield conn
    finally:
        _ON_COMMIT.reset(token)
    if outer is None:
        for hook in hooks:
            await hook()


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
