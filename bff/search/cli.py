"""`search reindex`: read the text of every current file (of one container) again."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from bff.cli_support import echo, fail, load_settings_or_fail, run, with_storage

if TYPE_CHECKING:
    from storage.base import Storage


@click.group()
def search() -> None:
    """Full-text search tools."""


@search.command("reindex")
@click.argument("container", required=False)
@click.option(
    "--background",
    is_flag=True,
    help="Only record the jobs: the running servers read the files (BFF_JOB_WORKERS each).",
)
def reindex(container: str | None, background: bool) -> None:
    """Read the text of every current file again (of CONTAINER, or of all): the jobs are
    recorded anew, then run here (BFF_JOB_WORKERS at once, at least one) with a progress bar,
    sharing the work with any server running beside."""
    settings = load_settings_or_fail()

    async def work(files: Storage) -> int:
        from bff.containers.repository import container_named
        from bff.files.repository import current_file_ids
        from bff.jobs import repository, service
        from bff.jobs.models import KIND_TEXT
        from bff.leases import INSTANCE

        container_id = None
        if container is not None:
            found = await container_named(container)
            if found is None:
                fail(f"No container named '{container}'.")
            container_id = found.id
        file_ids = await current_file_ids(container_id)
        kinds = [KIND_TEXT]  # search's own: thumbnails are not rebuilt here
        with click.progressbar(length=len(file_ids), label="Recording jobs") as bar:
            recorded = 0
            for start in range(0, len(file_ids), 100):
                batch = file_ids[start : start + 100]
                recorded += await service.record_all(batch, kinds)
                bar.update(len(batch))
        click.echo(f"Jobs recorded: {recorded} for {len(file_ids)} files.")
        if background or not recorded:
            return 0
        pool = service.job_pool(settings)
        try:
            with click.progressbar(length=recorded, label="Reading files") as bar:
                shown = 0

                async def progress() -> None:
                    nonlocal shown
                    left = await repository.unfinished_among(file_ids, kinds)
                    bar.update(max(0, recorded - left - shown))
                    shown = max(shown, recorded - left)

                async def left() -> bool:
                    await progress()
                    return shown < recorded

                await service.run_due(
                    files, settings, pool, INSTANCE, until_none=left, progress=progress
                )
        finally:
            await pool.close()
        counts = await repository.finished_among(file_ids, kinds)
        click.echo(f"Read: {counts['done']}. Could not be read: {counts['failed']}.")
        for row in await repository.failures_among(file_ids, kinds):  # names as stored
            echo(f"Not read: {row['container']}/{row['folder']}/{row['name']}: {row['reason']}")
        return 0

    run(with_storage(settings, work))
