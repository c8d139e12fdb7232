"""The durable jobs that read files' text: kept in step with overwrites, version and trash
restores and deletes; resumed after a crash; never run by two processes; tried again with
back-off and then failed with a reason; `search reindex`; the live event and the metrics."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from prometheus_client import REGISTRY

from bff.db import transaction
from bff.files.models import StoredFile
from bff.jobs import repository, service
from bff.jobs.models import KIND_THUMBNAIL, FileJob
from bff.search.extract import DAMAGED_PDF, no_language
from bff.search.models import SearchText
from bff.services import app_services
from bff.users.models import Role
from tests.conftest import make_settings, started_app
from tests.factories import assign, make_container, make_folder, make_staff
from tests.files.conftest import Ward
from tests.live.conftest import run_live
from tests.search.conftest import JOB_SETTINGS, png_of, settled, text_pdf, texts_of


async def _json(response: Any, status: int = 200) -> Any:
    assert response.status_code == status, await response.get_data()
    return await response.get_json()


async def _overwrite(ward: Ward, name: str, data: bytes) -> None:
    response = await ward.upload(ward.nurse, name, data, query={"overwrite": "true"})
    assert response.status_code == 201, await response.get_data()


async def test_overwrite_restores_and_the_trash_keep_the_text_in_step(reading_ward: Ward) -> None:
    ward = reading_ward
    assert (await ward.upload(ward.nurse, "notes.txt", b"alpha warfarin")).status_code == 201
    first = await settled(ward, "notes.txt")
    await _overwrite(ward, "notes.txt", b"beta insulin")
    second = await settled(ward, "notes.txt")
    assert second.version_id != first.version_id
    assert await texts_of(ward, "notes.txt") == [(1, "beta insulin")]
    assert await SearchText.filter(version_id=second.version_id).count() == 1
    # An earlier version made current: its text is read again.
    versions = await _json(
        await ward.client.get(ward.url("notes.txt", "versions"), headers=ward.nurse.headers)
    )
    [old] = [v for v in versions["versions"] if not v["current"]]
    restore = ward.url("notes.txt", "versions", old["versionId"], "restore")
    await _json(await ward.client.post(restore, headers=ward.nurse.headers))
    third = await settled(ward, "notes.txt")
    assert third.version_id == old["versionId"]
    assert await texts_of(ward, "notes.txt") == [(1, "alpha warfarin")]
    # Deleted to the trash: its text and job go with its row; restored: read again.
    file_id = third.file_id
    deleted = await ward.client.delete(ward.url("notes.txt"), headers=ward.admin.headers)
    await _json(deleted)
    assert await SearchText.filter(file_id=file_id).count() == 0
    assert await FileJob.filter(file_id=file_id).count() == 0
    back = ward.url("trash", "notes.txt", "restore")
    await _json(await ward.client.post(back, headers=ward.admin.headers))
    assert (await settled(ward, "notes.txt")).state == "done"
    assert await texts_of(ward, "notes.txt") == [(1, "alpha warfarin")]
    # Purged for good after a second delete: nothing of its text is left anywhere.
    await _json(await ward.client.delete(ward.url("notes.txt"), headers=ward.admin.headers))
    purge = await ward.client.delete(
        ward.url("trash", "notes.txt"), headers=ward.admin.headers, json={"confirmation": "DELETE"}
    )
    await _json(purge)
    assert await SearchText.all().count() == 0 and await FileJob.all().count() == 0


async def test_a_result_for_replaced_content_is_dropped(idle_ward: Ward) -> None:
    """A job claimed for the old content whose file is overwritten meanwhile: its result is
    not stored, and the new content's job is pending."""
    ward = idle_ward
    settings = app_services(ward.app).settings
    assert (await ward.upload(ward.nurse, "a.txt", b"old words")).status_code == 201
    [job] = await service.claim_due(1, "test:1", settings)
    await _overwrite(ward, "a.txt", b"new words")
    pool = service.job_pool(settings)
    try:
        outcome = await service.run_claimed(
            job, ward.storage, pool, settings, service.work_dir(settings)
        )
    finally:
        await pool.close()
    assert outcome == "superseded"
    assert await SearchText.all().count() == 0
    row = await FileJob.get(id=job.id)
    current = await StoredFile.get(id=job.file_id)
    assert (row.state, row.version_id, row.attempts) == ("pending", current.version_id, 0)


async def test_a_job_whose_process_died_is_resumed_by_another(idle_ward: Ward) -> None:
    """A process claimed the job and died (its claim expires); another takes it over and
    finishes it; the dead claim can no longer finish it."""
    ward = idle_ward
    settings = app_services(ward.app).settings
    assert (
        await ward.upload(ward.nurse, "letter.pdf", text_pdf("Resumed text"))
    ).status_code == 201
    await FileJob.filter(kind=KIND_THUMBNAIL).delete()  # the text job alone: claims take any kind
    [dead] = await service.claim_due(1, "crashed-host:4242", settings)
    assert await service.claim_due(1, "other:1", settings) == []  # held: nobody else takes it
    await FileJob.filter(id=dead.id).update(claimed_until=datetime.now(UTC) - timedelta(seconds=1))
    pool = service.job_pool(settings)
    try:
        await service.run_due(ward.storage, settings, pool, "survivor:1")
    finally:
        await pool.close()
    job = await FileJob.get(id=dead.id)
    assert (job.state, job.attempts, job.claim) == ("done", 2, None)
    assert await texts_of(ward, "letter.pdf") == [(1, "Resumed text")]
    assert not await repository.finish(None, dead.id, dead.claim, "failed", datetime.now(UTC))
    assert (await FileJob.get(id=dead.id)).state == "done"


ROOT = Path(__file__).resolve().parents[2]
JOBS = 90
CLAIMER = """
import asyncio, json, sys
from datetime import UTC, datetime, timedelta
from tortoise import Tortoise
from bff.db import tortoise_config
from bff.jobs import repository

async def main(url, holder):
    await Tortoise.init(config=tortoise_config(url))
    print("ready", flush=True)
    round = 0
    while sys.stdin.readline().strip() == "claim":  # both are told at once, each round
        round += 1
        now = datetime.now(UTC)
        token = f"{holder}-{round}"
        ids = await repository.claim(["text"], 3, token, holder, now, now + timedelta(minutes=5))
        for job_id in ids:
            assert await repository.finish(None, job_id, token, "done", datetime.now(UTC))
        print(json.dumps(ids), flush=True)
    await Tortoise.close_connections()

asyncio.run(main(sys.argv[1], sys.argv[2]))
"""


async def test_two_processes_never_claim_the_same_job(idle_ward: Ward) -> None:
    """Two processes claim at the same moment, round after round, until no job is left: each
    job is claimed by exactly one of them."""
    ward = idle_ward
    now = datetime.now(UTC)
    async with transaction() as conn:
        for n in range(JOBS):
            row = await StoredFile.create(
                folder_id=ward.folder.id,
                name=f"f{n}.txt",
                content_type="text/plain",
                size=1,
                last_modified=now,
                extension="txt",
                version_id=f"v{n}",
                using_db=conn,
            )
            await service.file_changed(conn, row)
    claimers = [
        await asyncio.create_subprocess_exec(
            sys.executable,
            "-c",
            CLAIMER,
            ward.settings.database_url,
            f"claimer-{n}",
            cwd=ROOT,
            env={**os.environ, "BFF_VAR_DIR": str(ward.settings.var_dir)},
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        for n in range(2)
    ]
    pipes = [(c.stdin, c.stdout) for c in claimers]
    taken: list[list[int]] = [[], []]
    try:
        for _, out in pipes:
            assert out is not None
            assert await asyncio.wait_for(out.readline(), 60) == b"ready\n"
        while len(taken[0]) + len(taken[1]) < JOBS:
            for into, _ in pipes:
                assert into is not None
                into.write(b"claim\n")
            for n, (_, out) in enumerate(pipes):
                assert out is not None
                got = json.loads(await asyncio.wait_for(out.readline(), 60))
                assert set(got).isdisjoint(taken[0] + taken[1])
                taken[n] += got
    finally:
        for claimer in claimers:
            assert claimer.stdin is not None
            claimer.stdin.write(b"stop\n")
            _, err = await asyncio.wait_for(claimer.communicate(), 60)
            assert claimer.returncode == 0, err.decode()
    assert set(taken[0]).isdisjoint(taken[1])
    assert sorted(taken[0] + taken[1]) == sorted(await FileJob.all().values_list("id", flat=True))
    assert taken[0] and taken[1]  # they did compete
    assert await FileJob.filter(state="done").count() == JOBS


def _counted(outcome: str) -> float:
    value = REGISTRY.get_sample_value("bff_file_jobs_total", {"kind": "text", "outcome": outcome})
    return value or 0.0


async def test_a_failing_job_is_tried_again_then_failed_with_its_reason(
    database_url: str, run_dir: Path, tmp_path: Path
) -> None:
    settings = make_settings(
        database_url,
        run_dir,
        storage_url=f"file://{tmp_path}/storage",
        **{**JOB_SETTINGS, "ocr_languages": "zzz", "job_attempts": 3},
    )
    retries, failures = _counted("retry"), _counted("failed")
    async with started_app(settings) as app:
        ward = await Ward(app, settings).setup()
        assert (await ward.upload(ward.nurse, "scan.png", png_of("not read"))).status_code == 201
        job = await settled(ward, "scan.png")
        assert (job.state, job.attempts, job.reason) == ("failed", 3, no_language("zzz"))
        # Backed off: the second wait (0.2 s) is twice the first (0.1 s).
        assert job.updated_at - job.created_at >= timedelta(seconds=0.3)
        # Counted once the failure has committed, just after the row says so: settled() waits
        # for the end of the job's run, the count with it.
        assert _counted("retry") - retries == 2 and _counted("failed") - failures == 1
        listed = {b["name"]: b for b in (await ward.listing(ward.nurse))["blobs"]}
        assert listed["scan.png"]["textProblem"] == no_language("zzz")
        backlog = REGISTRY.get_sample_value("bff_file_jobs_backlog", {"kind": "text"})
        assert backlog is not None


async def test_file_indexed_reaches_the_folders_room(
    database_url: str, run_dir: Path, tmp_path: Path
) -> None:
    settings = make_settings(
        database_url, run_dir, storage_url=f"file://{tmp_path}/storage", **JOB_SETTINGS
    )
    async for live in run_live(settings):
        container = await make_container()
        folder = await make_folder(container, "patient-1")
        nurse = await make_staff(live.settings, Role.NURSE)
        outsider = await make_staff(live.settings, Role.NURSE)
        await assign(nurse.user, container, folder)
        await assign(outsider.user, container, await make_folder(container, "patient-2"))
        nurse_ears = await live.listener(nurse.token, "nurse")
        outsider_ears = await live.listener(outsider.token, "outsider")
        client = live.app.test_client()
        url = f"/api/blobs/{container.name}/patient-1"
        for name, data in (("scan.png", png_of("allergy")), ("broken.pdf", b"%PDF-1.4 cut")):
            upload = await client.post(
                url,
                files={"file": _file(name, data)},
                headers=nurse.headers,
            )
            assert upload.status_code == 201
        heard = [await nurse_ears.wait_for("file:indexed", within=20)]
        since = nurse_ears.events.index(("file:indexed", heard[0])) + 1
        heard.append(await nurse_ears.wait_for("file:indexed", within=20, since=since))
        base = {"container": container.name, "folder": "patient-1"}
        assert sorted(heard, key=lambda e: e["name"]) == [
            {**base, "name": "broken.pdf", "state": "failed"},
            {**base, "name": "scan.png", "state": "ready"},
        ]
        assert "file:indexed" not in outsider_ears.names()


def _file(name: str, data: bytes) -> Any:
    from io import BytesIO

    from werkzeug.datastructures import FileStorage

    return FileStorage(BytesIO(data), filename=name)


async def test_search_reindex_reads_every_file_again(idle_ward: Ward) -> None:
    ward = idle_ward
    # Files stored while no process read text (or before search existed).
    assert (await ward.upload(ward.nurse, "a.txt", b"lisinopril dose")).status_code == 201
    assert (await ward.upload(ward.nurse, "b.pdf", b"%PDF-1.4 cut")).status_code == 201
    await FileJob.all().delete()
    out = await ward.cli("search", "reindex", ward.container.name)
    assert "Jobs recorded: 2 for 2 files." in out
    assert "Read: 1. Could not be read: 1." in out
    assert f"Not read: {ward.container.name}/patient-1/b.pdf: {DAMAGED_PDF}" in out
    assert await texts_of(ward, "a.txt") == [(1, "lisinopril dose")]
