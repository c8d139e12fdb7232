"""Tortoise ORM configuration, start-up and shutdown, and migrations."""

from __future__ import annotations

from typing import Any

from tortoise import Tortoise
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
]


def _db_url(url: str) -> str:
    # Tortoise names the asyncpg backend "postgres"; accept the usual spellings.
    for prefix in ("postgresql://", "asyncpg://"):
        if url.startswith(prefix):
            return "postgres://" + url.removeprefix(prefix)
    return url


def tortoise_config(database_url: str) -> dict[str, Any]:
    """The Tortoise configuration for a database URL."""
    return {
        "connections": {"default": _db_url(database_url)},
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


def transaction() -> Any:
    """A database transaction on the default connection: `async with transaction() as conn`."""
    from tortoise.transactions import in_transaction

    return in_transaction("default")
