"""Files scanned again after they came in, by a real clamd (issue 49, bff/scan/rescan.py): a
recent clean file whose bytes a new signature matches is quarantined (audited, admins alerted,
its folder's staff told live), files never scanned are scanned, and a run is bounded."""

from __future__ import annotations

import secrets
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bff.audit.models import AuditLog
from bff.files.models import StoredFile
from bff.scan.models import Quarantined
from bff.scan.rescan import rescan_files
from bff.scan.service import configure_scanning
from storage.base import ObjectKey
from tests.conftest import make_settings
from tests.files.conftest import Ward
from tests.live.conftest import run_live
from tests.scan.test_scanning import scanned_ward
from tools.testclamd import EICAR, RunningClamd


async def _row(ward: Ward, name: str) -> StoredFile | None:
    return await StoredFile.get_or_none(folder_id=ward.folder.id, name=name)


async def _age(ward: Ward, name: str, *, scanned: float = 25, stored: float = 0) -> None:
    """Set the file's last scan `scanned` hours back and its content's storing `stored` days."""
    now = datetime.now(UTC)
    await StoredFile.filter(folder_id=ward.folder.id, name=name).update(
        scanned_at=now - timedelta(hours=scanned),
        last_modified=now - timedelta(days=stored, seconds=1),
    )


async def test_a_recent_file_a_new_signature_matches_is_quarantined(
    database_url: str, run_dir: Path, tmp_path: Path, clamd: RunningClamd
) -> None:
    """Stored clean; a day later clamd learns a signature its bytes match (RELOAD, as after
    freshclam): the next rescan quarantines it, audited file_rejected reason rescan; admins
    alerted file:quarantined, the folder's staff told file:deleted."""
    settings = make_settings(
        database_url, run_dir, storage_url=f"file://{tmp_path}/storage", clamd=clamd.address
    )
    token = secrets.token_hex(12).encode()
    name = f"Bff-Rescan-{token.decode()}"
    async for live in run_live(settings):
        ward = await Ward(live.app, settings).setup()
        admin_ears = await live.listener(ward.admin.token, "admin")
        nurse_ears = await live.listener(ward.nurse.token, "nurse")
        data = b"Ward round notes " + token + b"\n"
        assert (await ward.upload(ward.nurse, "notes.txt", data)).status_code == 201
        row = await _row(ward, "notes.txt")
        assert row is not None and row.scan_state == "clean"
        assert await rescan_files(ward.storage) == 0  # scanned just now: not due

        await _age(ward, "notes.txt")
        clamd.add_signature(name, token)
        since = len(nurse_ears.events)
        async with live.app.app_context():  # as the app's Periodic runs it
            assert await rescan_files(ward.storage) == 1

        assert await _row(ward, "notes.txt") is None
        assert await ward.stored("notes.txt") is None
        entry = await Quarantined.get(name="notes.txt")
        assert (entry.signature, entry.reason, entry.uploaded_by_name) == (
            name,
            "rescan",
            ward.nurse.user.name,
        )
        kept = await ward.storage.open_object(ObjectKey.parse(entry.object_key))
        assert await kept.read_all() == data
        audit = await AuditLog.get(operation="file_rejected")
        assert audit.blob_name == "notes.txt" and name in audit.details
        assert "scanned again" in audit.details
        assert await admin_ears.wait_for("file:quarantined") == {
            "id": entry.id,
            "signature": name,
            "container": ward.container.name,
            "folder": ward.folder.name,
            "name": "notes.txt",
        }
        assert await nurse_ears.wait_for("file:deleted", since=since) == {
            "container": ward.container.name,
            "folder": ward.folder.name,
            "name": "notes.txt",
        }
        assert "file:quarantined" not in nurse_ears.names()


async def test_only_recent_files_are_scanned_again_once_a_day(
    database_url: str, run_dir: Path, tmp_path: Path, clamd: RunningClamd
) -> None:
    """BFF_RESCAN_DAYS (7) and BFF_RESCAN_HOURS (24): a file stored 8 days ago is not scanned
    again, nor one scanned 23 hours ago; one stored 2 days ago and scanned 25 hours ago is
    (scanned_at renewed). BFF_RESCAN_DAYS=0: none is."""
    url = f"file://{tmp_path}/storage"
    async with scanned_ward(database_url, run_dir, url, clamd=clamd.address) as ward:
        for name in ("old.txt", "fresh.txt", "due.txt"):
            assert (await ward.upload(ward.nurse, name, b"notes\n")).status_code == 201
        await _age(ward, "old.txt", stored=8)
        await _age(ward, "fresh.txt", scanned=23, stored=2)
        await _age(ward, "due.txt", stored=2)
        before = await _row(ward, "due.txt")
        assert before is not None and before.scanned_at is not None

        configure_scanning(ward.settings.model_copy(update={"rescan_days": 0}))
        assert await rescan_files(ward.storage) == 0
        configure_scanning(ward.settings)
        assert await rescan_files(ward.storage) == 1
        after = await _row(ward, "due.txt")
        assert after is not None and after.scan_state == "clean"
        assert after.scanned_at is not None and after.scanned_at > before.scanned_at
        assert await rescan_files(ward.storage) == 0


async def test_unscanned_files_are_scanned_once_a_scanner_is_configured(
    database_url: str, run_dir: Path, tmp_path: Path, clamd: RunningClamd
) -> None:
    """Stored with no scanner configured (unscanned, visible meanwhile), then a scanner: the
    clean one becomes clean, the infected one is quarantined."""
    url = f"file://{tmp_path}/storage"
    async with scanned_ward(database_url, run_dir, url, clamd="") as ward:
        assert (await ward.upload(ward.nurse, "notes.txt", b"notes\n")).status_code == 201
        assert (await ward.upload(ward.nurse, "eicar.txt", EICAR)).status_code == 201
        listing = await ward.listing(ward.nurse)
        assert sorted((b["name"], b["scanState"]) for b in listing["blobs"]) == [
            ("eicar.txt", "unscanned"),
            ("notes.txt", "unscanned"),
        ]
        assert await rescan_files(ward.storage) == 0  # no scanner: nothing to do

        configure_scanning(ward.settings.model_copy(update={"clamd": clamd.address}))
        assert await rescan_files(ward.storage) == 2
        row = await _row(ward, "notes.txt")
        assert row is not None and row.scan_state == "clean" and row.scanned_at
        assert await _row(ward, "eicar.txt") is None
        entry = await Quarantined.get(name="eicar.txt")
        assert (entry.signature, entry.reason) == ("Eicar-Test-Signature", "rescan")
        audit = await AuditLog.get(operation="file_rejected")
        assert "never scanned before" in audit.details


async def test_a_run_is_bounded(
    database_url: str, run_dir: Path, tmp_path: Path, clamd: RunningClamd
) -> None:
    """More files due than a run's count: only that many are scanned, the oldest first; no time
    left: none."""
    url = f"file://{tmp_path}/storage"
    async with scanned_ward(database_url, run_dir, url, clamd=clamd.address) as ward:
        names = [f"note-{n}.txt" for n in range(5)]
        for name in names:
            assert (await ward.upload(ward.nurse, name, b"notes\n")).status_code == 201
        for hours, name in enumerate(names):
            await _age(ward, name, scanned=30 - hours, stored=1)

        assert await rescan_files(ward.storage, budget_seconds=0) == 0
        assert await rescan_files(ward.storage, batch=3) == 3
        recent = datetime.now(UTC) - timedelta(hours=1)
        rows = {row.name: row for row in await StoredFile.filter(folder_id=ward.folder.id)}
        assert [name for name in names if rows[name].scanned_at > recent] == names[:3]
        assert await rescan_files(ward.storage, batch=3) == 2
        assert await rescan_files(ward.storage, batch=3) == 0
