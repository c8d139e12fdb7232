"""What the command-line commands share: settings, a migrated database, storage, passwords,
printing what came from outside (`echo`, `fail`), and reading a file named on the command line
(`TextFile`, `read_text_file`).

Imports of the ORM, the services and the settings stay inside the functions, so that `--help`
answers without loading them.
"""

from __future__ import annotations

import asyncio
import contextlib
import shlex
import sys
from collections.abc import Awaitable, Callable, Coroutine
from pathlib import Path
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


# The largest file a command reads (a CSV of patients, a batch of SmartTokens, a list of
# usernames): far above any real one, so that a wrong file (a disk image, /dev/zero) is refused
# rather than read into memory.
TEXT_FILE_LIMIT = 64 * 1024 * 1024


def read_text_file(name: str, *, save_as: str = "UTF-8", limit: int = TEXT_FILE_LIMIT) -> str:
    """The text of the file `name` given on the command line ('-': standard input), read as
    UTF-8 (a byte order mark, as Excel writes one, dropped). A file that cannot be read, is
    larger than limit, is not UTF-8 (save_as: what to save it as) or holds a NUL character (not
    a text file) ends the command with one line naming it and the line at fault, and exit
    status 2 (`fail`), never a traceback."""
    label = "Standard input" if name == "-" else name
    try:
        if name == "-":
            data = sys.stdin.buffer.read(limit + 1)
        else:
            with open(name, "rb") as source:
                data = source.read(limit + 1)
    except OSError as exc:
        fail(f"Cannot read {label}: {exc.strerror or type(exc).__name__}.")
    if len(data) > limit:
        fail(f"{label} is larger than {limit // (1024 * 1024)} MB: not a file this command reads.")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        fail(f"{label} is not UTF-8 text (line {line}): save it as {save_as} and try again.")
    nul = text.find("\x00")
    if nul >= 0:
        line = text.count("\n", 0, nul) + 1
        fail(f"{label} is not a text file: it holds a NUL character (line {line}).")
    return text


class TextFile(click.ParamType[str, str]):
    """A file of UTF-8 text named on the command line ('-': standard input), handed to the
    command as its text (`read_text_file`): `type=TextFile()` where `click.File("r")` would
    end in a UnicodeDecodeError's traceback on a file that is not UTF-8."""

    name = "file"

    def __init__(self, save_as: str = "UTF-8") -> None:
        self.save_as = save_as

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        return read_text_file(str(value), save_as=self.save_as)


def this_python() -> str:
    """The command that runs this Python, as a person types it here (for commands a command
    prints): relative to the working folder when inside it (.venv/bin/python), else in full."""
    path = Path(sys.executable)
    # A virtual environment's bin/python3.11 (pytest's entry point runs it) is also its
    # bin/python: the name the README and a person use.
    if path.name != "python" and (path.parent / "python").exists():
        path = path.parent / "python"
    with contextlib.suppress(ValueError):
        path = path.relative_to(Path.cwd())
    return shlex.quote(str(path))


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
    """Open the configured storage and a migrated database, then run work with both (content
    a command stores is scanned as an upload's is: bff/scan/)."""
    from bff.scan.service import configure_scanning
    from storage import open_storage

    configure_scanning(settings)
    async with open_storage(settings.storage_url) as storage:
        return await with_db(settings, lambda: work(storage))


def check_password(password: str, settings: Settings, context: tuple[str, ...] = ()) -> None:
    """End the command with exit status 2 when password does not follow the password rule
    (bff/auth/password_rule.py; context: the person's username and name)."""
    from bff.auth.password_rule import password_problem

    problem = password_problem(password, settings.password_min_length, context)
    if problem:
        fail(problem)
