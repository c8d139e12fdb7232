"""`folders import FILE.csv [--dry-run]`: patients' demographics from a CSV file."""

from __future__ import annotations

import click

from bff.cli_support import TextFile, echo, load_settings_or_fail, run, with_db


@click.group()
def folders() -> None:
    """Manage patient folders."""


@folders.command("import")
@click.argument("text", metavar="CSV_FILE", type=TextFile(save_as="CSV UTF-8"))
@click.option("--dry-run", is_flag=True, help="Print what would change; change nothing.")
def import_(text: str, dry_run: bool) -> None:
    """Set folders' patient name, date of birth and record number from CSV_FILE (columns:
    container, folder, name, date of birth as YYYY-MM-DD, record number). Existing folders
    only; an empty cell leaves that field as it is; any bad row and nothing changes."""
    settings = load_settings_or_fail()

    async def work() -> int:
        from bff.patients.importing import import_text

        # Its lines name the file's containers and folders as the cells spell them: `echo`.
        return await import_text(
            text,
            dry_run=dry_run,
            say=echo,
            warn=lambda line: echo(line, err=True),
        )

    run(with_db(settings, work))
