"""`folders import FILE.csv [--dry-run]`: patients' demographics from a CSV file;
`folders duplicates`: the folders sharing a record number since before numbers were unique."""

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


@folders.command("duplicates")
def duplicates() -> None:
    """List the folders that share a record number with another folder (found when record
    numbers became unique, migration 0032), each with the folder holding it. Saving such a
    folder is refused until its record number is changed. Exit status 1 when there are any."""
    settings = load_settings_or_fail()

    async def work() -> int:
        from bff.patients.service import shared_numbers

        pairs = await shared_numbers()
        for folder, holder in pairs:
            echo(f"{folder.container} / {folder.folder}: the record number of {holder.container}"
                 f" / {holder.folder}")  # fmt: skip
        echo(f"{len(pairs)} folder(s) share a record number with another folder.")
        return 1 if pairs else 0

    run(with_db(settings, work))
