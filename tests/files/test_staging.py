"""Staged uploads on each backend: what a crashed upload leaves is invisible, frees its name,
is never reindexed, and is removed by the sweep (one process at a time).

The states a crash leaves are built here directly (a pending row, a staged object, an object
moved to its name whose transaction never committed); tests/files/test_crash_recovery.py
makes them by killing a real server.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bff.files import pending_repository, repository, staging
from bff.files.models import PendingUpload
from bff.files.reindex import reindex
from bff.leases import take_lease
from tests import samples
from tests.conftest import make_settings
from tests.files.conftest import Ward

LONG_AGO = datetime.now(UTC) - timedelta(days=1)


async def _once(data: bytes) -> AsyncIterator[bytes]:
    yield data


async def _crashed_upload(ward: Ward, name: str, data: bytes, *, moved: bool) -> PendingUpload:
    """What a server killed mid-upload leaves: a pending row and a staged object, or (moved)
    the object already under its name and no index row."""
    container, folder = ward.container.name, ward.folder.name
    [row] = await pending_repository.add_pending(
        container, folder, [(name, staging.staging_key())], "x:1", LONG_AGO
    )
    await ward.storage.write_staged(row.staging_key, _once(data))
    if moved:
        await ward.storage.publish_staged(row.staging_key, container, folder, name)
    return row


async def _stored_names(ward: Ward) -> list[str]:
    files = await ward.storage.list_files(ward.container.name, ward.folder.name)
    return [info.name for info in files]


async def test_a_name_only_a_crashed_upload_holds_is_free(any_ward: Ward) -> None:
    ward = any_ward
    await _crashed_upload(ward, "scan.pdf", b"never acknowledged", moved=True)
    await _crashed_upload(ward, "notes.txt", b"never acknowledged", moved=False)
    assert (await ward.listing(ward.nurse))["blobs"] == []
    retries = {"scan.pdf": samples.pdf("The retry"), "notes.txt": b"the retry"}
    for name, data in retries.items():
        response = await ward.upload(ward.nurse, name, data)
        assert response.status_code == 201, await response.get_data()
        assert (await response.get_json())["replaced"] is False
    listed = {b["name"]: b["contentLength"] for b in (await ward.listing(ward.nurse))["blobs"]}
    assert listed == {name: len(data) for name, data in retries.items()}
    assert await ward.stored("scan.pdf") == retries["scan.pdf"]
    # The sweep later leaves the retries alone.
    await staging.sweep(ward.storage, 60)
    assert await ward.stored("scan.pdf") == retries["scan.pdf"]
    assert await PendingUpload.all().count() == 0


async def test_the_sweep_removes_what_crashed_uploads_left(any_ward: Ward) -> None:
    ward = any_ward
    await ward.upload(ward.nurse, "kept.txt", b"acknowledged")
    await _crashed_upload(ward, "moved.pdf", b"moved, never committed", moved=True)
    await _crashed_upload(ward, "staged.pdf", b"staged, never committed", moved=False)
    await ward.storage.write_staged("stray", _once(b"no row names me"))
    fresh = await pending_repository.add_pending(
        ward.container.name, ward.folder.name, [("busy.pdf", "busy")], "x:2", datetime.now(UTC)
    )
    await ward.storage.write_staged("busy", _once(b"still streaming"))
    assert sorted(await _stored_names(ward)) == ["kept.txt", "moved.pdf"]

    report = await staging.sweep(ward.storage, 60)

    assert (report.uploads, report.moved) == (2, 1)
    assert await _stored_names(ward) == ["kept.txt"]
    # The stray is younger than the grace period, like the upload still streaming: both stay.
    assert [i.name for i in await ward.storage.list_staged()] == ["busy", "stray"]
    assert [r.id for r in await PendingUpload.all()] == [fresh[0].id]
    await pending_repository.delete_pending(None, [fresh[0].id])
    await staging.sweep(ward.storage, 0)
    assert await ward.storage.list_staged() == []
    assert [b["name"] for b in (await ward.listing(ward.nurse))["blobs"]] == ["kept.txt"]


async def test_reindex_never_resurrects_an_uncommitted_upload(any_ward: Ward) -> None:
    ward = any_ward
    await ward.upload(ward.nurse, "kept.txt", b"acknowledged")
    await _crashed_upload(ward, "kept.txt", b"a retry that died before its move", moved=False)
    await _crashed_upload(ward, "moved.pdf", b"moved, never committed", moved=True)
    await _crashed_upload(ward, "staged.pdf", b"staged, never committed", moved=False)
    report = await reindex(ward.storage)
    assert (report.files_added, report.files_removed) == (0, 0)
    assert report.unfinished == [f"{ward.container.name}/{ward.folder.name}/moved.pdf"]
    assert [b["name"] for b in (await ward.listing(ward.nurse))["blobs"]] == ["kept.txt"]
    await staging.sweep(ward.storage, 60)
    assert (await reindex(ward.storage)).files_added == 0
    assert await _stored_names(ward) == ["kept.txt"]


async def test_an_overwrite_that_died_before_its_commit_leaves_a_true_listing(
    any_ward: Ward,
) -> None:
    ward = any_ward
    assert (await ward.upload(ward.nurse, "scan.pdf", samples.pdf("First"))).status_code == 201
    await _crashed_upload(ward, "scan.pdf", samples.pdf("The longer replacement"), moved=True)
    await staging.sweep(ward.storage, 60)
    [blob] = (await ward.listing(ward.nurse))["blobs"]
    assert blob["contentLength"] == len(await ward.stored("scan.pdf") or b"")


async def test_one_process_sweeps_at_a_time(any_ward: Ward) -> None:
    ward = any_ward
    await _crashed_upload(ward, "moved.pdf", b"moved, never committed", moved=True)
    now = datetime.now(UTC)
    assert await take_lease(staging.SWEEP_LEASE, "other:1", now, now + timedelta(minutes=1))
    report = await staging.sweep(ward.storage, 60)
    assert not report.ran
    assert await _stored_names(ward) == ["moved.pdf"]
    # An expired lease is taken over.
    await take_lease(staging.SWEEP_LEASE, "other:1", now, now - timedelta(seconds=1))
    assert (await staging.sweep(ward.storage, 60)).ran
    assert await _stored_names(ward) == []


async def test_a_failed_upload_leaves_no_staged_object_or_row(any_ward: Ward) -> None:
    ward = any_ward
    first = samples.pdf("First")
    assert (await ward.upload(ward.nurse, "scan.pdf", first)).status_code == 201
    response = await ward.upload(ward.nurse, "scan.pdf", samples.pdf("Second"))  # no overwrite
    assert response.status_code == 409
    assert await ward.storage.list_staged() == []
    assert await PendingUpload.all().count() == 0
    assert await ward.stored("scan.pdf") == first


async def test_a_live_upload_is_never_swept_however_long_it_lasts(
    any_ward: Ward, database_url: str, run_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its heartbeat refreshes it every quarter of the grace; after each beat a sweep at the
    last instant that beat covers leaves it, and once its process dies a sweep just past the
    grace takes it. Driven by the beats, with the sweeps' instants named: swept at instants of
    the clock, a sweep that came after a stall of the loaded machine found the last beat older
    than the grace (0.4 s) and took the live upload."""
    ward = any_ward
    grace = timedelta(seconds=0.4)
    staging.configure_staging(
        make_settings(database_url, run_dir, upload_staging_grace_seconds=grace.total_seconds())
    )
    assert staging._heartbeat_seconds == grace.total_seconds() / 4
    beats: asyncio.Queue[datetime] = asyncio.Queue()
    touch = pending_repository.touch_pending

    async def touched(ids: list[int], now: datetime) -> None:
        await touch(ids, now)
        beats.put_nowait(now)

    monkeypatch.setattr(pending_repository, "touch_pending", touched)
    seconds = grace.total_seconds()
    try:
        rows = await pending_repository.add_pending(
            ward.container.name, ward.folder.name, [("slow.pdf", "slow")], "x:3", datetime.now(UTC)
        )
        async with staging.heartbeat(rows):  # streaming for 5 grace periods: 20 beats
            for _ in range(20):
                beat = await beats.get()
                swept = await staging.sweep(ward.storage, seconds, now=beat + grace * 0.99)
                assert swept.uploads == 0
        # Then its process dies: silent past the grace since its last beat (the one written,
        # which may be one the end of the heartbeat cut off on its way to the queue).
        last = (await PendingUpload.get(id=rows[0].id)).alive_at
        assert (await staging.sweep(ward.storage, seconds, now=last + grace * 1.01)).uploads == 1
    finally:
        staging.configure_staging(ward.settings)


async def test_an_upload_whose_commit_fails_after_the_move_leaves_nothing(
    any_ward: Ward, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The index transaction moved the bytes to their name, then failed (the database went
    away at the commit, or the process is stopping and cancels it): the name's object goes
    with the pending row, so `storage reindex` does not list an upload never acknowledged."""
    ward = any_ward

    async def fails(*args: object, **kwargs: object) -> None:
        raise ConnectionError("the database went away")

    monkeypatch.setattr(repository, "create_file", fails)
    response = await ward.upload(ward.nurse, "lost.txt", b"never acknowledged")
    assert response.status_code != 201
    monkeypatch.undo()
    assert await ward.stored("lost.txt") is None
    assert await PendingUpload.all().count() == 0
    report = await reindex(ward.storage)
    assert report.files_added == 0
    assert (await ward.listing(ward.nurse))["blobs"] == []
