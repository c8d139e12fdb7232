"""`storage reindex` and `storage purge`: rebuild the file index from what storage holds;
apply the retention of the trash and of old versions."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from bff.cli_support import load_settings_or_fail, run, with_storage

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
        for line in (await reindex(files)).lines():
            click.echo(line)
        return 0

    run(with_storage(settings, work))


@storage.command("purge")
def purge_expired() -> None:
    """Purge the trash past BFF_TRASH_DAYS and old versions past BFF_VERSION_DAYS or
    BFF_MAX_VERSIONS now, printing what was purged (the running server does it too)."""
    settings = load_settings_or_fail()

    async def work(files: Storage) -> int:
        from bff.files.versions import purge_expired

        report = await purge_expired(files, settings)
        for line in report.lines():
            click.echo(line)
        return 0 if report.ran else 1

    run(with_storage(settings, work))
