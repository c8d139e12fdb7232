"""The intake's routing and filing killed (SIGKILL) at each step (issue 51: "a crash at each
step leaves the document in the folder, the mailbox or intake, never lost or duplicated").

A second process of the app (tests/intake/crash_child.py) shares the test's database, storage
and clamd; it routes what is waiting and is killed, with its worker processes, at one named
step. What it left is looked at; then the test's own app (the instance that stays) routes again
once the dead process's claims run out, and each document must be filed exactly once, to its
folder, with nothing left behind: no second file, no object in a folder the index does not name,
no part held, no claim standing. Runs on PostgreSQL with BFF_TEST_DATABASE=postgres."""

from __future__ import annotations

import asyncio
import io
import json
import os
import signal
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pikepdf
import pytest

from bff.files import staging
from bff.files.models import PendingUpload, StoredFile
from bff.intake import repository, reshaping, service
from bff.intake.access import purge_filed
from bff.intake.housekeeping import tidy
from bff.intake.models import IntakeItem, Source, Status
from bff.intake.repository import GONE, HELD
from bff.intake.routing_work import Busy
from bff.intake.service import INTAKE_AREA, sweep_orphans
from storage.base import ObjectKey
from tests.helpers import audit_entries
from tests.intake.crash_child import STEPS
from tests.intake.desk import (  # noqa: F401 - fixtures
    Desk,
    clamd_fixture,
    desk_fixture,
    png,
)
from tests.intake.sheet_scans import letter_pdf
from tests.intake.test_routing import _cover, _first_page, _letter, _scan
from tests.intake.test_routing_safety import _router, _taken

ROOT = Path(__file__).resolve().parents[2]
REACH_SECONDS = 180.0  # the child's start and its routing up to the step, on a loaded machine
SETTLED_SECONDS = 180.0
# The steps of a cover-sheet batch's routing and filing, in order.
ROUTING_STEPS = [
    "claimed",
    "between_parts",
    "split",
    "staged",
    "published",
    "committed",
    "between_filings",
]


async def killed_at(desk: Desk, step: str, tmp_path: Path, **extra: Any) -> None:
    """Run an app process on the desk's database and storage until it reaches step, then
    SIGKILL it and its workers."""
    assert step in STEPS
    settings = desk.settings
    marker = tmp_path / f"reached-{step}"
    config = tmp_path / f"child-{step}.json"
    config.write_text(
        json.dumps(
            {
                "step": step,
                "marker": str(marker),
                "settings": {
                    "database_url": settings.database_url,
                    "var_dir": str(settings.var_dir),
                    "storage_url": settings.storage_url,
                    "clamd": settings.clamd,
                    "scan_seconds": settings.scan_seconds,
                    "redis_url": "",
                    "job_workers": 0,
                },
                **extra,
            }
        )
    )
    log = tmp_path / f"child-{step}.log"
    with log.open("wb") as out:
        child = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "tests.intake.crash_child",
            str(config),
            cwd=ROOT,
            stdout=out,
            stderr=out,
            start_new_session=True,  # its worker processes die with it
        )
    try:
        deadline = time.monotonic() + REACH_SECONDS
        while not marker.exists():
            if child.returncode is not None or time.monotonic() > deadline:
                pytest.fail(f"the process did not reach {step}:\n{log.read_text()[-4000:]}")
            await asyncio.sleep(0.1)
    finally:
        os.killpg(child.pid, signal.SIGKILL)
        await child.wait()
    assert marker.read_text() == step


async def _claims_run_out() -> None:
    """Wait until no claim of a new item still stands (the dead process's run out)."""
    while True:
        now = datetime.now(UTC)
        standing = await IntakeItem.filter(
            status=Status.NEW, routing=repository.CLAIMED, routing_until__gte=now
        ).count()
        if not standing:
            return
        await asyncio.sleep(0.2)


async def restarted(desk: Desk) -> None:
    """The staying instance routes again once the dead process's claims ran out, until nothing
    is left to route; then its sweeps run as they do periodically (a later time named)."""
    await _claims_run_out()
    router = _router(desk)
    router.start()
    deadline = time.monotonic() + SETTLED_SECONDS
    while (
        await repository.routable_ids(datetime.now(UTC), 10)
        or await IntakeItem.filter(status=Status.NEW, routing=repository.CLAIMED).exists()
    ):
        assert time.monotonic() < deadline, "the routing did not settle"
        await asyncio.sleep(0.2)
    await router.stop()
    later = datetime.now(UTC) + timedelta(hours=1)
    report = await staging.sweep(
        desk.storage, desk.settings.upload_staging_grace_seconds, now=later
    )
    assert report.ran
    await sweep_orphans(desk.storage, timedelta(minutes=10), now=later)
    await purge_filed(desk.storage, now=later)


async def _batch(desk: Desk, tmp_path: Path) -> IntakeItem:
    """A scan as the scanner sends it: a cover sheet for `folder`, a letter, a cover sheet for
    `other`, a letter; taken in with the staying instance's router stopped."""
    await _router(desk).stop()
    first, _ = _cover(desk, desk.folder.id)
    second, _ = _cover(desk, desk.other.id)
    pages = [_first_page(first), _letter("A"), _first_page(second), _letter("B")]
    return await _taken(desk, _scan(tmp_path, pages), Source.SCANNER)


async def _folder_names(desk: Desk) -> dict[str, list[str]]:
    """Each folder's files as storage holds them, and as the index names them."""
    found: dict[str, list[str]] = {}
    for folder in (desk.folder, desk.other):
        stored = await desk.storage.list_files(desk.container.name, folder.name)
        indexed = await StoredFile.filter(folder_id=folder.id).values_list("name", flat=True)
        assert sorted(info.name for info in stored) == sorted(indexed), folder.name
        found[folder.name] = sorted(str(name) for name in indexed)
    return found


async def _intake_objects(desk: Desk) -> set[str]:
    """The object ids kept under .bff-intake/ (its quarantine aside)."""
    names = set()
    async for info in desk.storage.walk(ObjectKey.reserved(INTAKE_AREA)):
        key = ObjectKey.parse(info.name)
        if len(key.segments) == 2:
            names.add(key.name)
    return names


async def _one_page(desk: Desk, folder_name: str, name: str) -> int:
    stored = await desk.storage.open(desk.container.name, folder_name, name)
    with pikepdf.open(io.BytesIO(await stored.read_all())) as pdf:
        return len(pdf.pages)


async def _left_at(desk: Desk, step: str, original: IntakeItem) -> None:
    """What the kill at step left: the step was reached, and nothing is lost yet."""
    items = await IntakeItem.all().order_by("id")
    parts = [item for item in items if item.id != original.id]
    now = await IntakeItem.get(id=original.id)
    files = await StoredFile.all().count()
    if step == "claimed":
        assert (now.status, now.routing, now.routing_attempts) == (Status.NEW, "claimed", 1)
        assert parts == [] and files == 0
    elif step == "between_parts":
        assert (now.status, now.routing) == (Status.NEW, "claimed")
        assert [(p.status, p.routing) for p in parts] == [(Status.NEW, HELD)]  # never shown
        assert (await desk.inbox(desk.clerk))["total"] == 1  # the original only
    elif step == "split":
        assert now.status == Status.DELETED
        assert [(p.status, p.routing) for p in parts] == [(Status.NEW, "claimed")] * 2
        assert files == 0
    elif step in ("staged", "published"):
        assert [p.status for p in parts] == [Status.NEW, Status.NEW] and files == 0
        assert await PendingUpload.all().count() == 1
        named = await desk.storage.exists(desk.container.name, desk.folder.name, parts[0].file_name)
        assert named == (step == "published")  # moved to its name, never indexed
    elif step == "committed":
        assert [p.status for p in parts] == [Status.FILED, Status.NEW] and files == 1
        assert not parts[0].object_id.startswith(GONE)  # its intake copy not removed yet
    elif step == "between_filings":
        assert [p.status for p in parts] == [Status.FILED, Status.NEW] and files == 1
        assert (parts[1].routing, parts[1].routing_holder) == ("claimed", parts[0].routing_holder)


@pytest.mark.parametrize("step", ROUTING_STEPS)
async def test_a_routing_killed_at_each_step_files_each_document_once(
    desk: Desk, tmp_path: Path, step: str
) -> None:
    original = await _batch(desk, tmp_path)
    await killed_at(desk, step, tmp_path)
    await _left_at(desk, step, original)

    await restarted(desk)
    now = await IntakeItem.get(id=original.id)
    assert now.status == Status.DELETED and now.deleted_reason.startswith("Split into items ")
    parts = await IntakeItem.exclude(id=original.id).order_by("id")
    assert [(p.status, p.filed_folder, p.filed_name) for p in parts] == [
        (Status.FILED, desk.folder.name, "scan (page 2).pdf"),
        (Status.FILED, desk.other.name, "scan (page 4).pdf"),
    ], [(p.id, p.status, p.routing, p.problems) for p in parts]
    assert await _folder_names(desk) == {
        desk.folder.name: ["scan (page 2).pdf"],
        desk.other.name: ["scan (page 4).pdf"],
    }
    assert await _one_page(desk, desk.folder.name, "scan (page 2).pdf") == 1  # sheet removed
    assert len(await audit_entries("intake_routed")) == 2
    assert len(await audit_entries("intake_split")) == 1
    # Nothing left behind: no claim standing, no upload pending, nothing staged, no intake
    # copy but the original's (deleted: kept for the trash's time).
    assert await repository.routable_ids(datetime.now(UTC) + timedelta(hours=1), 10) == []
    assert await PendingUpload.all().count() == 0
    assert await desk.storage.list_staged() == []
    assert await _intake_objects(desk) == {now.object_id}
    assert (await desk.inbox(desk.clerk))["total"] == 0


async def test_a_routing_killed_after_its_suggestion_keeps_it_audited_once_and_files_nothing(
    desk: Desk, tmp_path: Path
) -> None:
    await desk.record_ann_smith()
    await _router(desk).stop()
    letter = letter_pdf("Re: Ann Smith, MRN 0012345, DOB 03/03/1961")
    item = await _taken(desk, letter, Source.SCANNER, "letter.pdf")
    await killed_at(desk, "suggested", tmp_path)
    left = await IntakeItem.get(id=item.id)
    assert (left.routing, left.suggestion["folderId"]) == ("claimed", desk.other.id)

    await restarted(desk)
    now = await IntakeItem.get(id=item.id)
    assert (now.status, now.routing, now.routing_attempts) == (Status.NEW, "done", 2)
    assert now.suggestion["folderId"] == desk.other.id
    assert len(await audit_entries("intake_suggested")) == 1  # the dead process's, kept
    assert await StoredFile.all().count() == 0  # a suggestion is never filed
    assert await _intake_objects(desk) == {now.object_id}


async def test_an_upload_batch_killed_in_its_second_commit_keeps_the_first_and_not_the_second(
    desk: Desk, tmp_path: Path
) -> None:
    """SIGKILL while the batch's second file commits (its bytes moved under .bff-intake/, the
    transaction open): the first file is an item, the second is not (its moved bytes named by
    none: the housekeeping removes them); the uploader, answered nothing, sends the batch again
    and each file is one item."""
    await _router(desk).stop()
    first, second = png(), png()
    files = []
    for name, data in (("one.png", first), ("two.png", second)):
        (tmp_path / name).write_bytes(data)
        files.append((name, str(tmp_path / name)))
    await killed_at(desk, "batch_commit", tmp_path, batch=files, headers=desk.clerk.headers)
    [kept] = await IntakeItem.all()
    assert kept.file_name == "one.png"
    assert len(await _intake_objects(desk)) == 2  # the second's moved bytes, named by no item

    results = await desk.batch(desk.clerk, [("one.png", first), ("two.png", second)])
    assert [(r["fileName"], r["duplicate"]) for r in results] == [
        ("one.png", True),
        ("two.png", False),
    ]
    later = datetime.now(UTC) + timedelta(hours=1)
    assert await sweep_orphans(desk.storage, timedelta(minutes=10), now=later) == 1
    items = await IntakeItem.all().order_by("id")
    assert [item.file_name for item in items] == ["one.png", "two.png"]
    assert await _intake_objects(desk) == {item.object_id for item in items}
    assert len(await audit_entries("intake_received")) == 2


async def test_a_split_killed_between_parts_and_never_done_again_leaves_no_part_held(
    desk: Desk, tmp_path: Path
) -> None:
    """Killed between a split's parts, and the original then deleted by a person (never split
    again): the part the dead process held (never shown, never routed) is discarded by the
    housekeeping with its bytes, not kept unseen for ever."""
    original = await _batch(desk, tmp_path)
    await killed_at(desk, "between_parts", tmp_path)
    [held] = await IntakeItem.filter(routing=HELD)
    response = await desk.delete(desk.clerk, original.id, {"reason": "scanned twice"})
    assert response.status_code == 200

    await restarted(desk)
    later = datetime.now(UTC) + timedelta(hours=2)
    assert await tidy(desk.storage, desk.settings, now=later) == (0, 1)
    part = await IntakeItem.get(id=held.id)
    assert part.status == Status.DELETED and part.routing == "done"
    assert part.deleted_reason.startswith("a split that never finished")
    assert await _intake_objects(desk) == {original.object_id}  # the part's bytes removed
    assert await StoredFile.all().count() == 0
    assert await tidy(desk.storage, desk.settings, now=later) == (0, 0)


async def test_a_held_part_discarded_while_a_split_takes_it_again_rolls_the_split_back(
    desk: Desk, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Killed between parts; much later the routing splits the original again and takes the
    dead process's held part as its own (the same bytes) just as the housekeeping discards it
    as stale: the split's settle is rolled back (the original stays new, no page lost with a
    deleted part), the item is given back, and the next routing files each document once."""
    original = await _batch(desk, tmp_path)
    await killed_at(desk, "between_parts", tmp_path)
    [held] = await IntakeItem.filter(routing=HELD)
    await _claims_run_out()
    later = datetime.now(UTC) + timedelta(hours=2)
    real_take_in = service.take_in
    discarded: list[int] = []

    async def take_in_as_housekeeping_runs(*args: Any, **kwargs: Any) -> Any:
        taken = await real_take_in(*args, **kwargs)
        if not discarded:
            assert taken[0].id == held.id  # the dead process's part, taken again
            discarded.append(await reshaping.discard_stale_parts(desk.storage, now=later))
        return taken

    monkeypatch.setattr(reshaping, "take_in", take_in_as_housekeeping_runs)
    with pytest.raises(Busy):
        await _router(desk).route(original.id)
    assert discarded == [1]
    now = await IntakeItem.get(id=original.id)
    assert (now.status, now.routing) == (Status.NEW, "pending")  # given back, whole
    assert await IntakeItem.filter(status=Status.NEW).count() == 1  # no part activated
    assert await StoredFile.all().count() == 0

    await restarted(desk)
    filed = await IntakeItem.filter(status=Status.FILED).order_by("id")
    assert [(p.filed_folder, p.filed_name) for p in filed] == [
        (desk.folder.name, "scan (page 2).pdf"),
        (desk.other.name, "scan (page 4).pdf"),
    ]
    assert await _folder_names(desk) == {
        desk.folder.name: ["scan (page 2).pdf"],
        desk.other.name: ["scan (page 4).pdf"],
    }
    now = await IntakeItem.get(id=original.id)
    assert now.status == Status.DELETED
    assert await _intake_objects(desk) == {now.object_id}
