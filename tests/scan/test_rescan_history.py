"""Earlier versions and trash entries are scanned by the rescan too (issue 49, review): those
stored before a scanner was configured (unscanned) or held; never again once clean. A finding
goes to quarantine and the version or entry is removed; a clean held one is released."""

from __future__ import annotations

from pathlib import Path

from bff.audit.models import AuditLog
from bff.files.models import FileVersion, StoredFile, TrashedFile
from bff.scan.models import Quarantined
from bff.scan.rescan import rescan_files
from bff.scan.service import configure_scanning
from storage.base import ObjectKey
from tests.conftest import make_settings, started_app
from tests.files.conftest import Ward
from tools.testclamd import EICAR, RunningClamd


async def test_versions_and_trash_entries_stored_before_scanning_are_scanned(
    database_url: str, run_dir: Path, tmp_path: Path, clamd: RunningClamd
) -> None:
    """The review's repro: EICAR uploaded twice before BFF_CLAMD was set, then a clean upload:
    the EICAR earlier versions stayed unscanned through every rescan, and a nurse could view
    them. Now the rescan quarantines them, and a deleted EICAR file's trash entry too."""
    url = f"file://{tmp_path}/storage"
    plain = make_settings(database_url, run_dir, storage_url=url)
    async with started_app(plain) as app:  # before a scanner was configured
        ward = await Ward(app, plain).setup()
        assert (await ward.upload(ward.nurse, "letter.txt", EICAR)).status_code == 201
        again = await ward.upload(
            ward.nurse, "letter.txt", EICAR + b"\n", query={"overwrite": "true"}
        )
        assert again.status_code in (200, 201)
        assert (await ward.upload(ward.nurse, "gone.txt", EICAR)).status_code == 201
        deleted = await ward.client.delete(ward.url("gone.txt"), headers=ward.admin.headers)
        assert deleted.status_code == 200
        assert (await ward.upload(ward.nurse, "kept.txt", b"first\n")).status_code == 201
        second = await ward.upload(ward.nurse, "kept.txt", b"second\n", query={"overwrite": "true"})
        assert second.status_code in (200, 201)
        assert {v.scan_state for v in await FileVersion.all()} == {"unscanned"}

        configure_scanning(
            make_settings(database_url, run_dir, storage_url=url, clamd=clamd.address)
        )
        async with app.app_context():
            assert await rescan_files(ward.storage) == 5  # 2 files, 2 versions, 1 trash entry
            assert await rescan_files(ward.storage) == 0  # clean ones are not scanned again

        assert sorted(q.name for q in await Quarantined.all()) == [
            "gone.txt",
            "letter.txt",
            "letter.txt",
        ]
        assert [(v.name, v.scan_state) for v in await FileVersion.all()] == [("kept.txt", "clean")]
        assert await TrashedFile.all().count() == 0
        assert await StoredFile.filter(name="letter.txt").count() == 0
        where = ObjectKey.folder(ward.container.name, ward.folder.name)
        left = ["/".join(ObjectKey.parse(i.name).inner) async for i in ward.storage.walk(where)]
        assert not [p for p in left if p.startswith((".bff-trash", ".bff-versions/letter.txt"))]
        rejected = await AuditLog.filter(operation="file_rejected").values_list(
            "details", flat=True
        )
        assert sum("earlier version" in d for d in rejected) == 1
        assert sum("trash entry" in d for d in rejected) == 1


async def test_a_held_earlier_version_is_released_by_a_clean_scan(
    database_url: str, run_dir: Path, tmp_path: Path, clamd: RunningClamd
) -> None:
    settings = make_settings(
        database_url, run_dir, storage_url=f"file://{tmp_path}/storage", clamd=clamd.address
    )
    async with started_app(settings) as app:
        ward = await Ward(app, settings).setup()
        assert (await ward.upload(ward.nurse, "notes.txt", b"one\n")).status_code == 201
        over = await ward.upload(ward.nurse, "notes.txt", b"two\n", query={"overwrite": "true"})
        assert over.status_code in (200, 201)
        version = await FileVersion.get(name="notes.txt")
        await FileVersion.filter(id=version.id).update(scan_state="held")
        listed = await ward.client.get(
            ward.url("notes.txt", "versions"), headers=ward.nurse.headers
        )
        assert version.version_id not in str(await listed.get_json())

        async with app.app_context():
            assert await rescan_files(ward.storage) == 1
        assert (await FileVersion.get(id=version.id)).scan_state == "clean"
        listed = await ward.client.get(
            ward.url("notes.txt", "versions"), headers=ward.nurse.headers
        )
        assert version.version_id in str(await listed.get_json())
        assert await AuditLog.filter(operation="file_released").count() == 1
