"""`storage reindex`: rebuild the file index from what storage holds."""

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
