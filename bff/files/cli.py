"""`storage reindex` and `storage purge`: rebuild the file index from what storage holds;
apply the retention of the trash and of old versions. `storage tighten`: owner-only modes."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from bff.cli_support import echo, load_settings_or_fail, run, with_storage

if TYPE_CHECKING:
    from storage.base import Storage


@click.group()
def storage() -> None:
    """File storage tools."""


@storage.command("reindex")
def reindex_files() -> None:
    """Rebuild the file index from what storage holds."""
    settings = load_settings_or_fail()

    async def work(files: Storage) -> int:
        from bff.files.reindex import reindex

        click.echo("Reindexing storage ...")
        for line in (await reindex(files)).lines():  # names as storage holds them
            echo(line)
        return 0

    run(with_storage(settings, work))


@storage.command("purge")
def purge_expired() -> None:
    """Purge the trash past BFF_TRASH_DAYS and old versions past BFF_VERSION_DAYS or
    BFF_MAX_VERSIONS now, printing what was purged (the running server does it too)."""
    settings = load_settings_or_fail()

    async def work(files: Storage) -> int:
        from bff.files.retention import purge_expired

        report = await purge_expired(files, settings)
        for line in report.lines():
            echo(line)
        return 0 if report.ran else 1

    run(with_storage(settings, work))


@storage.command("tighten")
@click.argument("backups", nargs=-1, type=click.Path(path_type=Path))
def tighten_modes(backups: tuple[Path, ...]) -> None:
    """Make the deployment's files owner-only (files 0600, directories 0700), as this version
    creates them: the var directory, the SQLite database, local storage, and the backup
    directories given as BACKUPS."""
    from config.filemodes import deployment_paths, tighten

    settings = load_settings_or_fail()
    result = tighten([*deployment_paths(settings), *backups])
    click.echo(f"Tightened {result.changed} of {result.checked} files and directories.")
    for path in result.missing:
        echo(f"Not found: {path}", err=True)
    raise SystemExit(1 if result.missing else 0)
