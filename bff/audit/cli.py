"""`audit verify`: check the audit log's hash chain from the command line."""

from __future__ import annotations

import click

from bff.cli_support import load_settings_or_fail, run, with_db


@click.group()
def audit() -> None:
    """Audit log tools."""


@audit.command()
def verify() -> None:
    """Verify the audit log's hash chain."""
    settings = load_settings_or_fail()

    async def work() -> int:
        from bff.audit.service import verify_chain

        count, broken = await verify_chain()
        if broken:
            click.echo(
                f"Audit log BROKEN at entry {broken.entry_id}: {broken.reason} "
                f"({count} entries checked)."
            )
            return 1
        click.echo(f"Audit log intact: {count} entries verified.")
        return 0

    run(with_db(settings, work))
