"""Documents handed over by the scan folder and the mailbox (issue 51): `service.take` with
bff/intake/incoming.py's Incoming, through the real app, database, storage and clamd; a file in
a real watched folder becomes an item; the intake's housekeeping (stray bytes, deleted items'
bytes after the trash's retention)."""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Literal

import pytest

from bff.errors import ApiError
from bff.files.names import new_id
from bff.intake import filing, service
from bff.intake.incoming import Incoming
from bff.intake.models import IntakeItem, Source, Status
from bff.intake.schemas import FileItem
from bff.scan.models import Quarantined
from storage.base import ObjectKey
from tests.conftest import make_settings, started_app
from tests.helpers import audit_entries, error_message
from tests.intake.desk import (  # noqa: F401 - fixtures
    Desk,
    clamd_fixture,
    desk_fixture,
    pdf,
    png,
)
from tools.testclamd import EICAR, RunningClamd


def incoming(tmp_path: Path, name: str, data: bytes, **mail: str) -> Incoming:
    """A document as a way in hands it over (its private copy on local disk)."""
    path = tmp_path / f"copy-{hashlib.sha256(data).hexdigest()[:8]}"
    path.write_bytes(data)
    source: Literal["scanner", "mailbox"] = "mailbox" if mail else "scanner"
    return Incoming(source, name, path, len(data), hashlib.sha256(data).hexdigest(), **mail)


async def _chunks(data: bytes) -> AsyncIterator[bytes]:
    yield data


async def _until(done: Callable[[], object], seconds: float = 30) -> None:
    """Wait until done() (awaited if it is a coroutine) is true, at most seconds."""
    for _ in range(int(seconds * 10)):
        result = done()
        if asyncio.iscoroutine(result):
            result = await result
        if result:
            return
        await asyncio.sleep(0.1)
    raise AssertionError("not done in time")


async def test_a_document_from_the_scanner_or_the_mailbox_is_taken_once(
    desk: Desk, tmp_path: Path
) -> None:
    scan = incoming(tmp_path, "scan_0001.pdf", pdf(2))
    async with desk.app.app_context():
        await service.take(scan)
        await service.take(scan)  # taken again (a crash before it was moved): the same item
    [item] = await IntakeItem.all()
    assert (item.source, item.file_name, item.page_count) == (Source.SCANNER, "scan_0001.pdf", 2)
    [entry] = await audit_entries("intake_received")
    assert entry.user_id is None and entry.name == "intake"
    assert "source=scanner" in entry.details

    mail = incoming(
        tmp_path,
        "referral.png",
        png(),
        sender="gp@example.org",
        subject="Referral",
        message_id="<abc@example.org>",
    )
    async with desk.app.app_context():
        await service.take(mail)
    latest = (await desk.inbox(desk.clerk))["items"][0]
    assert latest["source"] == "mailbox"
    assert (latest["sender"], latest["subject"], latest["messageId"]) == (
        "gp@example.org",
        "Referral",
        "<abc@example.org>",
    )


async def test_refused_content_is_done_with_an_unavailable_scanner_keeps_it_waiting(
    desk: Desk, tmp_path: Path, clamd: RunningClamd
) -> None:
    async with desk.app.app_context():
        await service.take(incoming(tmp_path, "virus.pdf", EICAR))  # refused: done with it
    assert await IntakeItem.all().count() == 0
    assert await Quarantined.filter(container=".bff-intake").count() == 1
    clamd.stop()
    try:
        async with desk.app.app_context():
            with pytest.raises(ApiError) as refused:
                await service.take(incoming(tmp_path, "letter.png", png()))
        assert refused.value.status == 503  # left in the scan folder, taken again later
    finally:
        clamd.start()
    assert await IntakeItem.all().count() == 0
    assert await desk.storage.list_staged() == []


async def test_housekeeping_removes_stray_bytes_and_a_deleted_items_bytes_in_time(
    desk: Desk,
) -> None:
    kept, removed = png(), png()
    results = await desk.batch(desk.clerk, [("kept.png", kept), ("removed.png", removed)])
    kept_id, removed_id = (r["item"]["id"] for r in results)
    later = datetime.now(UTC) + timedelta(hours=2)
    # Bytes a crash left under .bff-intake/ (moved, never committed): no item names them.
    stray = ObjectKey.reserved(service.INTAKE_AREA, new_id())
    await desk.storage.write_object(stray, _chunks(b"stray"))
    assert await service.sweep_orphans(desk.storage, timedelta(hours=1)) == 0  # not yet
    assert await service.sweep_orphans(desk.storage, timedelta(hours=1), now=later) == 1
    names = [info.name async for info in desk.storage.walk(ObjectKey.reserved(".bff-intake"))]
    bytes_kept = [name for name in names if name.count("/") == 1]  # not their thumbnails
    assert stray.path not in names and len(bytes_kept) == 2  # both items' bytes stay

    response = await desk.delete(desk.clerk, removed_id, {"reason": "blank page"})
    assert response.status_code == 200
    assert await filing.purge_deleted(desk.storage, 30) == 0  # within the trash's retention
    assert await filing.purge_deleted(desk.storage, 30, now=later + timedelta(days=30)) == 1
    gone = await desk.client.get(
        f"/api/intake/items/{removed_id}/content", headers=desk.clerk.headers
    )
    assert await error_message(gone, 404) == filing.CONTENT_GONE
    row = await IntakeItem.get(id=removed_id)
    assert row.status == Status.DELETED  # the row stays, for the audit trail's meaning
    ok = await desk.client.get(f"/api/intake/items/{kept_id}/content", headers=desk.clerk.headers)
    assert await ok.get_data() == kept


async def test_a_file_in_the_scan_folder_becomes_an_item(
    database_url: str, run_dir: Path, tmp_path: Path, clamd: RunningClamd
) -> None:
    scans = tmp_path / "scans"
    scans.mkdir()
    settings = make_settings(
        database_url,
        run_dir,
        storage_url=f"file://{tmp_path}/storage",
        clamd=clamd.address,
        intake_folder=scans,
        intake_settle_seconds=0.2,
    )
    data = pdf(1)
    async with started_app(settings):
        (scans / "fax-0042.pdf").write_bytes(data)
        await _until(IntakeItem.exists)
        await _until(lambda: not (scans / "fax-0042.pdf").exists())  # moved after the commit
        [item] = await IntakeItem.all()
        assert (item.source, item.file_name, item.size) == (
            Source.SCANNER,
            "fax-0042.pdf",
            len(data),
        )
        assert list((scans / ".processed").rglob("fax-0042.pdf"))


async def test_a_cover_sheets_routing_files_as_the_intake(desk: Desk, tmp_path: Path) -> None:
    async with desk.app.app_context():
        await service.take(incoming(tmp_path, "scan_0002.pdf", pdf(1)))
        [item] = await IntakeItem.all()
        target = FileItem(container=desk.container.name, folder=desk.folder.name)
        filed = await filing.file_item(
            item.id,
            target,
            service.INTAKE_ACTOR,
            desk.storage,
            operation="intake_routed",
            details="sheet=S-123",
        )
    assert filed.status == Status.FILED and filed.filed_by_name == "intake"
    [entry] = await audit_entries("intake_routed")
    assert (entry.container_name, entry.folder_name, entry.blob_name) == (
        desk.container.name,
        desk.folder.name,
        "scan_0002.pdf",
    )
    assert entry.details.endswith("; sheet=S-123") and entry.user_id is None
    listing = await desk.listing(desk.nurse)
    assert "scan_0002.pdf" in [blob["name"] for blob in listing["blobs"]]
