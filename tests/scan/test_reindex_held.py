"""Files the reindex finds in storage came in by no upload, so no scan saw them (issue 49,
review): with a scanner configured they are indexed held, the admins' only, until the
rescan finds them clean; an infected one never reaches the staff, and goes to quarantine."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

from bff.files.models import FileVersion, StoredFile, TrashedFile
from bff.files.names import trash_key, trashed_version_key, version_key
from bff.files.reindex import reindex
from bff.scan.models import Quarantined
from bff.scan.rescan import rescan_files
from storage.base import ObjectKey
from tests.conftest import make_settings, started_app
from tests.files.conftest import Ward
from tools.testclamd import EICAR, RunningClamd


async def _once(data: bytes) -> AsyncIterator[bytes]:
    yield data


async def _names(ward: Ward, who: str) -> list[str]:
    member = ward.admin if who == "admin" else ward.nurse
    return sorted(blob["name"] for blob in (await ward.listing(member))["blobs"])


async def test_files_found_by_the_reindex_are_held_until_scanned(
    database_url: str, run_dir: Path, tmp_path: Path, clamd: RunningClamd
) -> None:
    settings = make_settings(
        database_url, run_dir, storage_url=f"file://{tmp_path}/storage", clamd=clamd.address
    )
    async with started_app(settings) as app:
        ward = await Ward(app, settings).setup()
        for name, data in (("copied.txt", b"Referral letter\n"), ("dropped.pdf", EICAR)):
            key = ObjectKey.file(ward.container.name, ward.folder.name, name)
            await ward.storage.write_object(key, _once(data))
        async with app.app_context():
            assert (await reindex(ward.storage)).files_added == 2
        states = {r.name: r.scan_state for r in await StoredFile.filter(folder_id=ward.folder.id)}
        assert states == {"copied.txt": "held", "dropped.pdf": "held"}
        assert await _names(ward, "nurse") == []  # before: both listed, EICAR downloadable
        assert await _names(ward, "admin") == ["copied.txt", "dropped.pdf"]
        download = await ward.client.get(
            f"{ward.url()}/dropped.pdf/url", headers=ward.nurse.headers
        )
        assert download.status_code == 404

        async with app.app_context():
            assert await rescan_files(ward.storage) == 2
        assert await _names(ward, "nurse") == ["copied.txt"]
        assert (await Quarantined.get(name="dropped.pdf")).reason == "rescan"


async def test_versions_and_trash_entries_found_by_the_reindex_are_held(
    database_url: str, run_dir: Path, tmp_path: Path, clamd: RunningClamd
) -> None:
    """An earlier version and a trash entry put into storage by another tool came in by no
    upload either: held with a scanner configured (before: unscanned, and a nurse could view,
    download and restore the EICAR version, the review's repro)."""
    settings = make_settings(
        database_url, run_dir, storage_url=f"file://{tmp_path}/storage", clamd=clamd.address
    )
    async with started_app(settings) as app:
        ward = await Ward(app, settings).setup()
        assert (await ward.upload(ward.nurse, "notes.txt", b"clean notes\n")).status_code == 201
        where = ObjectKey.folder(ward.container.name, ward.folder.name)
        vid = "20250101T000000000000Z-deadbeef"
        tid = "20250102T000000000000Z-cafebabe"
        await ward.storage.write_object(version_key(where, "notes.txt", vid), _once(EICAR))
        await ward.storage.write_object(trash_key(where, tid, "dropped.txt"), _once(EICAR))
        await ward.storage.write_object(
            trashed_version_key(where, tid, "20250101T000000000000Z-0badf00d"), _once(EICAR)
        )
        async with app.app_context():
            report = await reindex(ward.storage)
        assert (report.versions_added, report.trash_added) == (2, 1)
        assert {v.scan_state for v in await FileVersion.all()} == {"held"}
        assert (await TrashedFile.get(trash_id=tid)).scan_state == "held"

        listed = await ward.client.get(
            ward.url("notes.txt", "versions"), headers=ward.nurse.headers
        )
        assert vid not in str(await listed.get_json())
        for ask in ("view", "restore"):
            call = ward.client.post if ask == "restore" else ward.client.get
            got = await call(
                ward.url("notes.txt", "versions", vid, ask), headers=ward.nurse.headers
            )
            assert got.status_code == 404
