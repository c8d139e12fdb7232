"""Links given before a file's content became held answer as for a file that is not there
(issue 49, review): a viewer page or thumbnail link never tells a held file from a deleted
one, nor serves the held content; a reindex that finds only new times keeps files in sight."""

from __future__ import annotations

import os
import time
from collections.abc import AsyncIterator
from pathlib import Path

from bff.files.models import StoredFile
from bff.files.reindex import reindex
from bff.files.service import FILE_NOT_FOUND
from bff.users.models import Role
from storage.base import ObjectKey
from tests import samples
from tests.conftest import make_settings, started_app
from tests.factories import assign, make_staff
from tests.files.conftest import Ward
from tools.testclamd import RunningClamd


async def _page_link(ward: Ward, name: str) -> str:
    opened = await ward.client.get(ward.url(name, "viewer"), headers=ward.nurse.headers)
    assert opened.status_code == 200, await opened.get_data()
    url: str = (await opened.get_json())["pageUrl"]
    return url.replace("{page}", "1").replace("{width}", "640")


async def _answer(ward: Ward, url: str) -> tuple[int, str]:
    response = await ward.client.get(url, headers=ward.nurse.headers)
    return response.status_code, (await response.get_json())["message"]


async def test_a_stale_viewer_link_tells_held_from_deleted_no_more(
    holding_ward: Ward, clamd: RunningClamd
) -> None:
    """Before: the held one answered "This file has changed since it was opened", the deleted
    one "File not found": a nurse learnt which of her open files had held content on them."""
    ward = holding_ward
    colleague = await make_staff(ward.settings, Role.NURSE)
    await assign(colleague.user, ward.container, ward.folder)
    for name in ("a.pdf", "b.pdf"):
        assert (await ward.upload(colleague, name, samples.pdf(name))).status_code == 201
    links = {name: await _page_link(ward, name) for name in ("a.pdf", "b.pdf")}
    clamd.stop()
    try:
        again = await ward.upload(
            colleague, "a.pdf", samples.pdf("held"), query={"overwrite": "true"}
        )
        assert (await again.get_json())["blob"]["scanState"] == "held"
    finally:
        clamd.start()
    deleted = await ward.client.delete(ward.url("b.pdf"), headers=ward.admin.headers)
    assert deleted.status_code in (200, 204)
    assert await _answer(ward, links["a.pdf"]) == (404, FILE_NOT_FOUND)
    assert await _answer(ward, links["b.pdf"]) == (404, FILE_NOT_FOUND)


async def _once(data: bytes) -> AsyncIterator[bytes]:
    yield data


async def test_content_changed_in_storage_is_held_under_a_new_version(
    database_url: str, run_dir: Path, tmp_path: Path, clamd: RunningClamd
) -> None:
    """A viewer link a nurse had before the reindex found new bytes under the name never
    renders them (before: it kept its version id, and the held content's pages were served)."""
    settings = make_settings(
        database_url, run_dir, storage_url=f"file://{tmp_path}/storage", clamd=clamd.address
    )
    async with started_app(settings) as app:
        ward = await Ward(app, settings).setup()
        uploaded = await ward.upload(ward.nurse, "scan.pdf", samples.pdf("Before"))
        assert uploaded.status_code == 201
        before = await StoredFile.get(folder_id=ward.folder.id, name="scan.pdf")
        link = await _page_link(ward, "scan.pdf")
        key = ObjectKey.file(ward.container.name, ward.folder.name, "scan.pdf")
        await ward.storage.write_object(key, _once(samples.pdf("Held content, another length")))
        async with app.app_context():
            assert (await reindex(ward.storage)).files_updated == 1
        after = await StoredFile.get(id=before.id)
        assert after.scan_state == "held" and after.version_id != before.version_id
        assert await _answer(ward, link) == (404, FILE_NOT_FOUND)
        listed = [blob["name"] for blob in (await ward.listing(ward.nurse))["blobs"]]
        assert listed == []


async def test_new_times_alone_keep_files_in_sight(
    database_url: str, run_dir: Path, tmp_path: Path, clamd: RunningClamd
) -> None:
    """Files copied by a tool that does not keep times (rsync without -t, aws s3 sync) are not
    new content: still listed for staff, and first for the next rescan (before: all held,
    hidden from every member of staff until the rescan reached them, 20 a minute)."""
    settings = make_settings(
        database_url, run_dir, storage_url=f"file://{tmp_path}/storage", clamd=clamd.address
    )
    async with started_app(settings) as app:
        ward = await Ward(app, settings).setup()
        names = [f"note-{index}.txt" for index in range(3)]
        for name in names:
            assert (await ward.upload(ward.nurse, name, b"scanned clean\n")).status_code == 201
        later = time.time() + 600
        for path in (tmp_path / "storage").rglob("note-*.txt"):
            os.utime(path, (later, later))
        async with app.app_context():
            assert (await reindex(ward.storage)).files_updated == 3
        listed = sorted(blob["name"] for blob in (await ward.listing(ward.nurse))["blobs"])
        assert listed == names
        rows = await StoredFile.filter(folder_id=ward.folder.id)
        assert {row.scan_state for row in rows} == {"clean"}
        assert all(row.scanned_at is not None and row.scanned_at.year == 2000 for row in rows)
