"""`backup DIR` and `restore DIR [--force]`: a snapshot of the whole deployment, and back."""

from __future__ import annotations

import click

from bff.cli_support import echo, load_settings_or_fail, run


@click.command()
@click.argument("location")
def backup(location: str) -> None:
    """Write a consistent snapshot (database, every stored object, manifest) to LOCATION.

    LOCATION is a new or empty directory, or an s3://BUCKET/PREFIX[?endpoint_url=..] URL. The
    server may keep running and serving meanwhile.
    """
    settings = load_settings_or_fail()

    async def work() -> int:
        from bff.backup.service import backup as write_snapshot
        from bff.backup.snapshot import SnapshotError

        try:
            report = await write_snapshot(settings, location, say=_say)
        except SnapshotError as exc:
            echo(f"Backup failed: {exc}", err=True)
            return 1
        for line in report.lines():
            echo(line)
        return 0

    run(work())


@click.command()
@click.argument("location")
@click.option("--force", is_flag=True, help="Empty a non-empty database and storage first.")
@click.option(
    "--identity",
    "identity_file",
    type=click.Path(dir_okay=False),
    help="The age identity file the snapshot is encrypted to (default: "
    "BFF_BACKUP_IDENTITY_FILE, else var/backup_identity).",
)
def restore(location: str, force: bool, identity_file: str | None) -> None:
    """Restore the snapshot at LOCATION into the configured database and storage, then verify
    every checksum, the file index and the audit chain (exit status 1 on any mismatch).

    Before anything is written, the manifest is authenticated with the backup key
    (BFF_BACKUP_KEY) and every part checked against it: a snapshot that fails is refused.
    Every session the snapshot held is ended: everyone signs in again."""
    settings = load_settings_or_fail()

    async def work() -> int:
        from bff.backup.restore import restore as load_snapshot
        from bff.backup.snapshot import SnapshotError

        try:
            report = await load_snapshot(
                settings, location, force=force, identity_file=identity_file, say=_say
            )
        except SnapshotError as exc:
            echo(f"Restore failed: {exc}", err=True)
            return 1
        for line in report.lines():
            echo(line)
        return 1 if report.problems else 0

    run(work())


def _say(line: str) -> None:
    echo(line, err=True)
