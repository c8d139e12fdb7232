"""Files the reindex finds in storage came in by no upload, so no scan saw them (issue 49,
review): with a scanner configured they are indexed held, the admins' only, until the
rescan finds them clean; an infected one never reaches the staff, and goes to quarantine."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

from bff.files.models import StoredFile
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
