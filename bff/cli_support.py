"""What the command-line commands share: settings, a migrated database, storage, passwords,
and printing what came from outside (`echo`, `fail`).

Imports of the ORM, the services and the settings stay inside the functions, so that `--help`
answers without loading them.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable, Callable, Coroutine
from typing import TYPE_CHECKING, Any, NoReturn

import click

from config.logs import shown

if TYPE_CHECKING:
    from config.settings import Settings
    from storage.base import Storage


def echo(line: object, err: bool = False) -> None:
    """Print a line that may hold input from outside (a CSV cell, a username, a stored name, a
    file name, an error naming one), its control characters shown escaped (config/logs.py's
    `shown`): an escape sequence in a cell must not retitle or rewrite the admin's terminal."""
    click.echo(shown(line), err=err)


def fail(message: str, code: int = 2) -> NoReturn:
    """Print message on stderr (`echo`) and end the command with exit status code."""
    echo(message, err=True)
    sys.exit(code)


def load_settings_or_fail() -> Settings:
    """The settings; an invalid one ends the command with one line and exit status 2."""
    from config.settings import SettingsError, load_settings

    try:
        return load_settings()
    except SettingsError as exc:
        fail(str(exc))


def run(work: Coroutine[Any, Any, int]) -> NoReturn:
    """Run a command's async work and exit with the status it returns."""
    sys.exit(asyncio.run(work))


async def with_db(settings: Settings, work: Callable[[], Awaitable[int]]) -> int:
    """Migrate the database, then run work with it open; what it changes is announced to the
    running processes through Redis (session ends, account changes: bff/live/events.py)."""
    from bff.audit.service import configure_audit
    from bff.db import close_db, init_db, migrate
    from bff.live.events import announced

    configure_audit(settings)
    await migrate(settings)
    await init_db(settings)
    try:
        async with announced(settings):
            return await work()
    finally:
        await close_db()


async def with_storage(settings: Settings, work: Callable[[Storage], Awaitable[int]]) -> int:
    """Open the configured storage and a migrated database, then run work with both."""
    from storage import open_storage

    async with open_storage(settings.storage_url) as storage:
        return await with_db(settings, lambda: work(storage))


def check_password(password: str, settings: Settings, context: tuple[str, ...] = ()) -> None:
    """End the command with exit status 2 when password does not follow the password rule
    (bff/auth/password_rule.py; context: the person's username and name)."""
    from bff.auth.password_rule import password_problem

    problem = password_problem(password, settings.password_min_length, context)
    if problem:
        fail(problem)
