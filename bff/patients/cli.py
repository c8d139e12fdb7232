"""`folders import FILE.csv [--dry-run]`: patients' demographics from a CSV file."""

from __future__ import annotations

from pathlib import Path

import click

from bff.cli_support import echo, fail, load_settings_or_fail, run, with_db


@click.group()
def folders() -> None:
    """Manage patient folders."""


@folders.command("import")
@click.argument("csv_file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--dry-run", is_flag=True, help="Print what would change; change nothing.")
def import_(csv_file: Path, dry_run: bool) -> None:
    """Set folders' patient name, date of birth and record number from CSV_FILE (columns:
    container, folder, name, date of birth as YYYY-MM-DD, record number). Existing folders
    only; an empty cell leaves that field as it is; any bad row and nothing changes."""
    settings = load_settings_or_fail()
    try:
        text = csv_file.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError:
        fail(f"{csv_file} is not UTF-8 text: save it as CSV UTF-8 and try again.")

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
