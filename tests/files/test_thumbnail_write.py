"""A thumbnail job writes its picture to storage outside any transaction (issue 47 review,
item 4): the write held SQLite's one connection as long as storage took (seconds on a slow S3),
so every request and every write of the process waited. Crash safety is kept: the object is
recorded for removal before it is written and only the transaction that names it in
`file_previews` forgets that record, so a job superseded meanwhile, or a process that dies
between the write and that commit, leaves no object behind."""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from bff.db import fetch, in_transaction, transaction
from bff.files import staging
from bff.files.models import FilePreview, PendingRemoval
from bff.jobs import repository as jobs_repository
from bff.jobs import service as jobs
from bff.jobs.models import KIND_THUMBNAIL
from bff.jobs.repository import Claimed
from bff.services import app_services
from bff.workers import WorkerPool
from storage.base import PREVIEWS_DIR, ObjectKey
from tests.files.conftest import Ward
from tests.files.test_previews import image_of, stored_previews


class HeldWrite:
    """The ward's storage with its thumbnail writes held: `writing` is set when one begins
    (whether a transaction was open then is noted), it goes on once `go` is set, and `after` is
    set when it has been written (`hang_after`: the job then waits there forever, as a process
    that died after the write)."""

    def __init__(self, ward: Ward, monkeypatch: pytest.MonkeyPatch, hang_after: bool = False):
        self.writing = asyncio.Event()
        self.go = asyncio.Event()
        self.after = asyncio.Event()
        self.in_transaction: list[bool] = []
        storage = ward.storage
        write = storage.write_object

        async def held(key: ObjectKey, *args: Any, **kwargs: Any) -> Any:
            if PREVIEWS_DIR not in key.inner:
                return await write(key, *args, **kwargs)
            self.in_transaction.append(in_transaction())
            self.writing.set()
            await self.go.wait()
            written = await write(key, *args, **kwargs)
            self.after.set()
            if hang_after:
                await asyncio.Event().wait()
            return written

        monkeypatch.setattr(storage, "write_object", held)


@pytest.fixture
async def pool(ward: Ward) -> AsyncIterator[WorkerPool]:
    """The jobs' worker pool of the ward's app."""
    started = jobs.job_pool(app_services(ward.app).settings)
    try:
        yield started
    finally:
        await started.close()


async def _claim(ward: Ward) -> Claimed:
    token = secrets.token_hex(8)
    now = datetime.now(UTC)
    await jobs_repository.claim([KIND_THUMBNAIL], 10, token, "test", now, now + timedelta(1))
    [claimed] = await jobs_repository.claimed(token)
    return claimed


def _run(ward: Ward, job: Claimed, pool: WorkerPool) -> asyncio.Task[str]:
    services = app_services(ward.app)
    return asyncio.create_task(
        jobs.run_claimed(
            job, services.storage, pool, services.settings, jobs.work_dir(services.settings)
        )
    )


async def _recorded_removals(ward: Ward) -> list[str]:
    return [r.path for r in await PendingRemoval.filter(folder_id=ward.folder.id)]


async def test_the_thumbnail_is_written_outside_any_transaction_and_named_after(
    ward: Ward, pool: WorkerPool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While the picture is being written: no transaction of the job's is open, another
    transaction (every request's connection on SQLite) and the health check go through at once,
    no row names the picture yet and it is recorded for removal. Once written, the row names it
    and the record is gone."""
    assert (await ward.upload(ward.nurse, "a.png", image_of("PNG"))).status_code == 201
    held = HeldWrite(ward, monkeypatch)
    running = _run(ward, await _claim(ward), pool)
    await held.writing.wait()
    assert held.in_transaction == [False]
    async with asyncio.timeout(30):  # SQLite: waited for the job's transaction, before
        async with transaction() as conn:
            await fetch("SELECT 1 AS x", conn=conn)
    assert (await ward.client.get("/api/health")).status_code == 200
    assert not await FilePreview.exists(file__folder_id=ward.folder.id)
    [path] = await _recorded_removals(ward)
    assert path.startswith(f"{PREVIEWS_DIR}/a.png/")
    held.go.set()
    assert await running == "done"
    preview = await FilePreview.get(file__folder_id=ward.folder.id)
    assert preview.ready
    assert await _recorded_removals(ward) == []
    assert await stored_previews(ward) == [tuple(path.split("/"))]
    [blob] = (await ward.listing(ward.nurse))["blobs"]
    shown = await ward.client.get(blob["preview"], headers=ward.nurse.headers)
    assert shown.status_code == 200
    assert shown.headers["Content-Type"] == "image/webp"


async def test_a_thumbnail_of_a_content_replaced_during_its_write_is_removed(
    ward: Ward, pool: WorkerPool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The file is overwritten while the old content's picture is being written: the job is
    superseded and removes what it wrote, leaving nothing recorded; the new content's job
    makes the one thumbnail."""
    assert (await ward.upload(ward.nurse, "a.png", image_of("PNG"))).status_code == 201
    held = HeldWrite(ward, monkeypatch)
    running = _run(ward, await _claim(ward), pool)
    await held.writing.wait()
    async with asyncio.timeout(60):  # the job's transaction held the file, before
        again = await ward.upload(
            ward.nurse, "a.png", image_of("JPEG"), query={"overwrite": "true"}
        )
    assert again.status_code == 201
    held.go.set()
    assert await running == "superseded"
    assert await stored_previews(ward) == []
    assert await _recorded_removals(ward) == []
    monkeypatch.undo()
    assert await _run(ward, await _claim(ward), pool) == "done"
    assert len(await stored_previews(ward)) == 1


async def test_a_process_that_dies_between_the_write_and_its_commit_leaves_nothing(
    ward: Ward, pool: WorkerPool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The content is replaced before the picture is written, and the process stops right after
    the write (its job's task ends there: no further step of the job runs): the picture lies in
    storage, named by no row, recorded for removal; the upload sweep removes it."""
    assert (await ward.upload(ward.nurse, "a.png", image_of("PNG"))).status_code == 201
    held = HeldWrite(ward, monkeypatch, hang_after=True)
    running = _run(ward, await _claim(ward), pool)
    await held.writing.wait()
    async with asyncio.timeout(60):  # the job's transaction held the file, before
        again = await ward.upload(
            ward.nurse, "a.png", image_of("JPEG"), query={"overwrite": "true"}
        )
    assert again.status_code == 201  # it removed the old content's thumbnail: none yet
    held.go.set()
    await held.after.wait()
    running.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await running
    [left] = await stored_previews(ward)
    assert await _recorded_removals(ward) == ["/".join(left)]
    assert not await FilePreview.exists(file__folder_id=ward.folder.id)
    settings = app_services(ward.app).settings
    later = datetime.now(UTC) + timedelta(seconds=settings.upload_staging_grace_seconds + 1)
    report = await staging.sweep(ward.storage, settings.upload_staging_grace_seconds, now=later)
    assert report.leftovers == 1
    assert await stored_previews(ward) == []
    assert await _recorded_removals(ward) == []
