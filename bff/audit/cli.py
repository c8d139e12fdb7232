"""`audit verify` and `audit checkpoint`: check the audit log against its chain and its signed
checkpoints, and write a checkpoint on demand."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from bff.cli_support import echo, load_settings_or_fail, run, with_storage

if TYPE_CHECKING:
    from storage.base import Storage


@click.group()
def audit() -> None:
    """Audit log tools."""


@audit.command()
def verify() -> None:
    """Verify the audit log's keyed chain and every checkpoint (exit status 1 on a break)."""
    settings = load_settings_or_fail()

    async def work(storage: Storage) -> int:
        from bff.audit.integrity import verify_log

        result = await verify_log(storage)
        if result.broken:  # its reason may quote what the database holds
            echo(
                f"Audit log BROKEN at entry {result.broken.entry_id}: {result.broken.reason} "
                f"({result.count} entries verified before it, {result.checkpoints} checkpoints)."
            )
            return 1
        click.echo(f"Audit log intact: {result.count} entries verified.")
        if result.latest is None:
            click.echo("No checkpoint yet: every entry is checked by the chain alone.")
        else:
            when = result.latest.time.strftime("%Y-%m-%d %H:%M:%S UTC")
            click.echo(
                f"{result.checkpoints} checkpoints verified; the latest at entry "
                f"{result.latest.last_id} ({when}). {result.after_latest} entries after it "
                "are checked by the chain alone."
            )
        return 0

    run(with_storage(settings, work))


@audit.command()
def checkpoint() -> None:
    """Verify the entries since the latest checkpoint and write a new signed one."""
    settings = load_settings_or_fail()

    async def work(storage: Storage) -> int:
        from bff.audit.integrity import write_checkpoint

        result = await write_checkpoint(storage)
        if result.busy:
            click.echo("Another process is writing a checkpoint; try again in a moment.")
            return 1
        if result.broken:
            echo(
                f"Audit log BROKEN at entry {result.broken.entry_id}: {result.broken.reason}. "
                "No checkpoint written; run `audit verify` for the whole log."
            )
            return 1
        if result.written:
            click.echo(
                f"Checkpoint written at entry {result.written.last_id} "
                f"({result.written.count} entries)."
            )
        elif result.unchanged:
            click.echo(f"No new entries since the checkpoint at entry {result.unchanged.last_id}.")
        else:
            click.echo("The audit log is empty: nothing to checkpoint.")
        return 0

    run(with_storage(settings, work))
