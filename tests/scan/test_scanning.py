"""Every new content scanned by a real clamd (tools/testclamd.py) on its way in (issue 49):
infected content refused and quarantined (audited, announced, counted), clean content stored
"clean", an unavailable scanner or a file over BFF_SCAN_MAX_MB refused or held, the quarantine's
admin routes; on local disk and on S3."""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from aiobotocore.session import AioSession

from bff.audit.models import AuditLog
from bff.files.models import PendingUpload, StoredFile
from bff.scan.clamd import Unavailable, parse_reply
from bff.scan.models import Quarantined
from bff.scan.rescan import rescan_files
from storage.base import NotFound, ObjectKey
from tests.conftest import REGION, make_settings, started_app
from tests.files.conftest import Ward
from tests.live.conftest import marker, run_live
from tools.testclamd import EICAR, MARKER, RunningClamd

INFECTED = "This file was not saved: the virus scanner found Eicar-Test-Signature"
UNAVAILABLE = (
    "The virus scanner is not available; the file was not saved. Try again in a few minutes."
)
LOCAL = {"client": ("127.0.0.1", 40000)}


@asynccontextmanager
async def scanned_ward(
    database_url: str, run_dir: Path, storage_url: str, **overrides: Any
) -> AsyncIterator[Ward]:
    settings = make_settings(
        database_url, run_dir, storage_url=storage_url, scan_seconds=10, **overrides
    )
    async with started_app(settings) as app:
        yield await Ward(app, settings).setup()


@pytest.fixture
async def ward(
    database_url: str, run_dir: Path, tmp_path: Path, clamd: RunningClamd
) -> AsyncIterator[Ward]:
    """A ward on local storage whose uploads clamd scans (refused while it is unavailable)."""
    url = f"file://{tmp_path}/storage"
    async with scanned_ward(database_url, run_dir, url, clamd=clamd.address) as ward:
        yield ward


@pytest.fixture
async def holding_ward(
    database_url: str, run_dir: Path, tmp_path: Path, clamd: RunningClamd
) -> AsyncIterator[Ward]:
    """The same, holding uploads while the scanner is unavailable, scanning up to 1 MB."""
    url = f"file://{tmp_path}/storage"
    async with scanned_ward(
        database_url, run_dir, url, clamd=clamd.address, scan_unavailable="hold", scan_max_mb=1
    ) as ward:
        yield ward


async def _row(ward: Ward, name: str) -> StoredFile | None:
    return await StoredFile.get_or_none(folder_id=ward.folder.id, name=name)


async def _nothing_left(ward: Ward, name: str) -> None:
    """No file of that name listed, stored or indexed, no upload pending, nothing staged."""
    listing = await ward.listing(ward.nurse)
    assert name not in [blob["name"] for blob in listing["blobs"]]
    assert await ward.stored(name) is None
    assert await _row(ward, name) is None
    assert await PendingUpload.all().count() == 0
    assert await ward.storage.list_staged() == []


async def _quarantined(ward: Ward, signature: str, name: str) -> Quarantined:
    row = await Quarantined.get(name=name)
    assert (row.container, row.folder, row.signature) == (
        ward.container.name,
        ward.folder.name,
        signature,
    )
    assert (row.uploaded_by_id, row.uploaded_by_name) == (ward.nurse.user.id, ward.nurse.user.name)
    assert row.reason == "upload"
    assert row.object_key.startswith(f"{ward.container.name}/{ward.folder.name}/.bff-quarantine/")
    return row


async def test_eicar_is_refused_quarantined_audited_and_counted(ward: Ward) -> None:
    response = await ward.upload(ward.nurse, "report.pdf", EICAR)
    assert response.status_code == 422
    assert (await response.get_json())["message"] == INFECTED
    await _nothing_left(ward, "report.pdf")

    row = await _quarantined(ward, "Eicar-Test-Signature", "report.pdf")
    assert row.size == len(EICAR)
    kept = await ward.storage.open_object(ObjectKey.parse(row.object_key))
    assert await kept.read_all() == EICAR

    entry = await AuditLog.get(operation="file_rejected")
    assert (entry.user_id, entry.container_name, entry.folder_name, entry.blob_name) == (
        ward.nurse.user.id,
        ward.container.name,
        ward.folder.name,
        "report.pdf",
    )
    assert "Eicar-Test-Signature" in entry.details

    metrics = await ward.client.get("/metrics", scope_base=LOCAL)
    assert metrics.status_code == 200
    text = await metrics.get_data(as_text=True)
    assert 'bff_scans_total{result="infected"}' in text
    assert "bff_scan_seconds_count" in text


async def test_quarantined_content_is_never_reachable_through_the_file_api(ward: Ward) -> None:
    await ward.upload(ward.nurse, "x.txt", EICAR)
    row = await Quarantined.get(name="x.txt")
    key = ObjectKey.parse(row.object_key)
    for name in (".bff-quarantine", key.name, f".bff-quarantine/{key.name}"):
        for parts in ((name, "url"), (name, "view"), (name, "viewer")):
            response = await ward.client.get(ward.url(*parts), headers=ward.admin.headers)
            assert response.status_code in (400, 404), parts
    listing = await ward.listing(ward.admin)
    assert [blob["name"] for blob in listing["blobs"]] == []


async def test_a_clean_file_is_stored_clean(ward: Ward) -> None:
    response = await ward.upload(ward.nurse, "notes.txt", b"Blood pressure 120/80")
    assert response.status_code == 201, await response.get_data()
    row = await _row(ward, "notes.txt")
    assert row is not None
    assert row.scan_state == "clean"
    assert row.scanned_at is not None
    assert await ward.stored("notes.txt") == b"Blood pressure 120/80"
    listing = await ward.listing(ward.nurse)
    assert [(b["name"], b["scanState"]) for b in listing["blobs"]] == [("notes.txt", "clean")]


async def test_a_finding_in_the_last_chunk_of_a_larger_file(ward: Ward) -> None:
    data = secrets.token_bytes(3 * 1024 * 1024) + MARKER
    response = await ward.upload(ward.nurse, "scan.bin", data)
    assert response.status_code == 422
    assert (await response.get_json())["message"] == (
        "This file was not saved: the virus scanner found Bff-Test-Marker"
    )
    await _nothing_left(ward, "scan.bin")
    row = await _quarantined(ward, "Bff-Test-Marker", "scan.bin")
    assert row.size == len(data)


async def test_a_new_version_with_a_virus_leaves_the_old_one(ward: Ward) -> None:
    assert (await ward.upload(ward.nurse, "letter.txt", b"first")).status_code == 201
    response = await ward.upload(ward.nurse, "letter.txt", EICAR, overwrite="true")
    assert response.status_code == 422
    assert (await response.get_json())["message"] == INFECTED
    assert await ward.stored("letter.txt") == b"first"
    row = await _row(ward, "letter.txt")
    assert row is not None and row.size == len(b"first") and row.scan_state == "clean"
    versions = await ward.client.get(ward.url("letter.txt", "versions"), headers=ward.admin.headers)
    assert versions.status_code == 200  # the current content alone: none kept for the refused
    listed = (await versions.get_json())["versions"]
    assert [(v["current"], v["contentLength"]) for v in listed] == [(True, 5)]


async def test_scanner_down_refuses_with_retry_after(
    ward: Ward, scanner_down: RunningClamd
) -> None:
    response = await ward.upload(ward.nurse, "notes.txt", b"harmless")
    assert response.status_code == 503
    assert response.headers["Retry-After"]
    assert (await response.get_json())["message"] == UNAVAILABLE
    await _nothing_left(ward, "notes.txt")
    assert await Quarantined.all().count() == 0


async def test_scanner_down_with_hold_stores_held(
    holding_ward: Ward, scanner_down: RunningClamd
) -> None:
    ward = holding_ward
    response = await ward.upload(ward.nurse, "notes.txt", b"harmless")
    assert response.status_code == 201, await response.get_data()
    row = await _row(ward, "notes.txt")
    assert row is not None
    assert (row.scan_state, row.scanned_at) == ("held", None)

    # Until a scan lets it out, a held file is the admins' only: for anyone else it is not there.
    admin_sees = await ward.listing(ward.admin)
    assert [(b["name"], b["scanState"]) for b in admin_sees["blobs"]] == [("notes.txt", "held")]
    assert (await ward.listing(ward.nurse))["blobs"] == []
    for parts in (("url",), ("versions",), ("viewer",)):
        refused = await ward.client.get(ward.url("notes.txt", *parts), headers=ward.nurse.headers)
        assert refused.status_code == 404, parts
        assert (await refused.get_json())["message"] == "File not found"
    link = await ward.client.get(ward.url("notes.txt", "url"), headers=ward.admin.headers)
    assert link.status_code == 200
    viewed = await ward.client.get((await link.get_json())["url"], headers=ward.admin.headers)
    assert viewed.status_code == 200
    assert await viewed.get_data() == b"harmless"
    by_header = await ward.client.get(ward.url("notes.txt", "view"), headers=ward.nurse.headers)
    assert by_header.status_code == 404


async def test_a_file_over_the_scan_limit_is_refused(
    database_url: str, run_dir: Path, tmp_path: Path, clamd: RunningClamd
) -> None:
    url = f"file://{tmp_path}/storage"
    async with scanned_ward(database_url, run_dir, url, clamd=clamd.address, scan_max_mb=1) as ward:
        response = await ward.upload(ward.nurse, "big.txt", b"a" * (1024 * 1024 + 1))
        assert response.status_code == 503
        assert (await response.get_json())["message"] == UNAVAILABLE
        await _nothing_left(ward, "big.txt")
        small = await ward.upload(ward.nurse, "small.txt", b"a" * (1024 * 1024))
        assert small.status_code == 201


async def test_a_file_over_the_scan_limit_is_held(holding_ward: Ward) -> None:
    ward = holding_ward
    response = await ward.upload(ward.nurse, "big.txt", b"a" * (2 * 1024 * 1024))
    assert response.status_code == 201
    row = await _row(ward, "big.txt")
    assert row is not None and row.scan_state == "held"


async def test_over_clamds_own_limit_is_never_passed(
    database_url: str, run_dir: Path, tmp_path: Path, clamd: RunningClamd
) -> None:
    """BFF_SCAN_MAX_MB set above clamd's StreamMaxLength (8 MB here): clamd's refusal is
    unavailable too, never a pass."""
    url = f"file://{tmp_path}/storage"
    async with scanned_ward(
        database_url, run_dir, url, clamd=clamd.address, scan_max_mb=20
    ) as ward:
        response = await ward.upload(ward.nurse, "big.txt", b"a" * (9 * 1024 * 1024))
        assert response.status_code == 503
        await _nothing_left(ward, "big.txt")


def test_a_limit_that_stopped_clamd_is_never_a_finding_nor_a_pass() -> None:
    """clamd with AlertExceedsMax names the limit that kept it from scanning all of a stream:
    that is unavailable (refused or held), never quarantined as malware."""
    reply = b"stream: Heuristics.Limits.Exceeded.MaxFileSize FOUND"
    with pytest.raises(Unavailable) as failure:
        parse_reply(reply)
    assert failure.value.too_large
    assert parse_reply(b"stream: Eicar-Test-Signature.UNOFFICIAL FOUND").signature == (
        "Eicar-Test-Signature"
    )


async def test_content_beyond_clamds_file_size_limit_is_never_stored_clean(
    database_url: str, run_dir: Path, tmp_path: Path
) -> None:
    """The review's pass: clamd reads a stream up to StreamMaxLength (10 MB here) but scans only
    MaxFileSize (1 MB here, Debian's is 25M) of it, and without AlertExceedsMax answers OK for a
    marker past it. Configured as docs/operations.md asks, it says so, and the upload is
    refused as unscannable, never stored clean."""
    with RunningClamd(tmp_path / "small-clamd", stream_max_mb=10, max_file_mb=1) as small:
        url = f"file://{tmp_path}/storage"
        async with scanned_ward(database_url, run_dir, url, clamd=small.address) as ward:
            data = b"a" * (2 * 1024 * 1024) + MARKER
            response = await ward.upload(ward.nurse, "notes.txt", data)
            assert response.status_code == 503, await response.get_data()
            assert (await response.get_json())["message"] == UNAVAILABLE
            await _nothing_left(ward, "notes.txt")
            assert await Quarantined.all().count() == 0


async def test_without_a_scanner_files_are_unscanned(
    database_url: str, run_dir: Path, tmp_path: Path
) -> None:
    url = f"file://{tmp_path}/storage"
    async with scanned_ward(database_url, run_dir, url) as ward:
        assert (await ward.upload(ward.nurse, "e.txt", EICAR)).status_code == 201
        row = await _row(ward, "e.txt")
        assert row is not None and (row.scan_state, row.scanned_at) == ("unscanned", None)
        state = await ward.client.get("/api/admin/scanning", headers=ward.admin.headers)
        assert await state.get_json() == {
            "configured": False,
            "available": None,
            "unavailable": "refuse",
            "quarantined": 0,
            "held": 0,
        }


async def test_quarantine_list_and_delete_for_admins_only(ward: Ward) -> None:
    for name in ("one.txt", "two.txt"):
        assert (await ward.upload(ward.nurse, name, EICAR)).status_code == 422

    listed = await ward.client.get("/api/admin/quarantine", headers=ward.admin.headers)
    assert listed.status_code == 200
    body = await listed.get_json()
    assert body["total"] == 2 and body["page"] == 1 and body["pageSize"] == 50
    assert [entry["name"] for entry in body["quarantined"]] == ["two.txt", "one.txt"]
    first = body["quarantined"][0]
    assert first["signature"] == "Eicar-Test-Signature"
    assert first["uploadedById"] == ward.nurse.user.id
    assert first["uploadedByName"] == ward.nurse.user.name
    assert first["reason"] == "upload" and first["kept"] is True
    assert await AuditLog.filter(operation="quarantine_list").count() == 1

    paged = await ward.client.get(
        "/api/admin/quarantine",
        headers=ward.admin.headers,
        query_string={"page": "2", "pageSize": "1"},
    )
    assert [e["name"] for e in (await paged.get_json())["quarantined"]] == ["one.txt"]

    state = await ward.client.get("/api/admin/scanning", headers=ward.admin.headers)
    assert await state.get_json() == {
        "configured": True,
        "available": True,
        "unavailable": "refuse",
        "quarantined": 2,
        "held": 0,
    }

    for path in ("/api/admin/quarantine", "/api/admin/scanning"):
        refused = await ward.client.get(path, headers=ward.nurse.headers)
        assert refused.status_code in (403, 404)
    entry_id = first["id"]
    refused = await ward.client.delete(
        f"/api/admin/quarantine/{entry_id}", headers=ward.nurse.headers
    )
    assert refused.status_code in (403, 404)

    row = await Quarantined.get(id=entry_id)
    deleted = await ward.client.delete(
        f"/api/admin/quarantine/{entry_id}", headers=ward.admin.headers
    )
    assert deleted.status_code == 200, await deleted.get_data()
    assert await Quarantined.get_or_none(id=entry_id) is None
    with pytest.raises(NotFound):
        await ward.storage.stat_object(ObjectKey.parse(row.object_key))
    entry = await AuditLog.get(operation="quarantine_delete")
    assert entry.blob_name == "two.txt" and entry.user_id == ward.admin.user.id
    again = await ward.client.delete(
        f"/api/admin/quarantine/{entry_id}", headers=ward.admin.headers
    )
    assert again.status_code == 404


async def test_scanning_state_while_down(ward: Ward, scanner_down: RunningClamd) -> None:
    state = await ward.client.get("/api/admin/scanning", headers=ward.admin.headers)
    assert (await state.get_json())["available"] is False


async def test_quarantine_on_s3(
    database_url: str, run_dir: Path, clamd: RunningClamd, s3_endpoint: str, s3_session: AioSession
) -> None:
    bucket = "scan-" + secrets.token_hex(6)
    async with s3_session.create_client("s3", endpoint_url=s3_endpoint, region_name=REGION) as s3:
        await s3.create_bucket(Bucket=bucket)
    url = f"s3://{bucket}/records?endpoint_url={s3_endpoint}&region={REGION}"
    async with scanned_ward(database_url, run_dir, url, clamd=clamd.address) as ward:
        response = await ward.upload(ward.nurse, "report.pdf", EICAR)
        assert response.status_code == 422
        await _nothing_left(ward, "report.pdf")
        row = await _quarantined(ward, "Eicar-Test-Signature", "report.pdf")
        kept = await ward.storage.open_object(ObjectKey.parse(row.object_key))
        assert await kept.read_all() == EICAR
        assert (await ward.upload(ward.nurse, "ok.txt", b"fine")).status_code == 201
        assert [b["name"] for b in (await ward.listing(ward.nurse))["blobs"]] == ["ok.txt"]
        deleted = await ward.client.delete(
            f"/api/admin/quarantine/{row.id}", headers=ward.admin.headers
        )
        assert deleted.status_code == 200
        with pytest.raises(NotFound):
            await ward.storage.stat_object(ObjectKey.parse(row.object_key))


async def test_admins_hear_of_a_quarantine_live(
    database_url: str, run_dir: Path, tmp_path: Path, clamd: RunningClamd
) -> None:
    """A real Socket.IO client of an admin gets file:quarantined; the nurse who uploaded (not
    an admin) does not."""
    settings = make_settings(
        database_url, run_dir, storage_url=f"file://{tmp_path}/storage", clamd=clamd.address
    )
    async for live in run_live(settings):
        ward = await Ward(live.app, settings).setup()
        admin_ears = await live.listener(ward.admin.token, "admin")
        nurse_ears = await live.listener(ward.nurse.token, "nurse")
        assert (await ward.upload(ward.nurse, "report.pdf", EICAR)).status_code == 422
        row = await Quarantined.get(name="report.pdf")
        assert await admin_ears.wait_for("file:quarantined") == {
            "id": row.id,
            "signature": "Eicar-Test-Signature",
            "container": ward.container.name,
            "folder": ward.folder.name,
            "name": "report.pdf",
        }
        await marker(live, ward.admin, nurse_ears, ward.nurse.user)
        assert "file:quarantined" not in nurse_ears.names()


async def test_held_files_are_scanned_once_clamd_answers(
    holding_ward: Ward, scanner_down: RunningClamd
) -> None:
    ward = holding_ward
    assert (await ward.upload(ward.nurse, "notes.txt", b"harmless")).status_code == 201
    assert (await ward.upload(ward.nurse, "eicar.txt", EICAR)).status_code == 201
    assert await rescan_files(ward.storage) == 0  # still down: nothing settled
    scanner_down.start()

    assert await rescan_files(ward.storage) == 2
    released = await _row(ward, "notes.txt")
    assert released is not None and released.scan_state == "clean" and released.scanned_at
    listing = await ward.listing(ward.nurse)
    assert [(b["name"], b["scanState"]) for b in listing["blobs"]] == [("notes.txt", "clean")]

    assert await _row(ward, "eicar.txt") is None
    assert await ward.stored("eicar.txt") is None
    row = await Quarantined.get(name="eicar.txt")
    assert (row.signature, row.reason, row.uploaded_by_name) == (
        "Eicar-Test-Signature",
        "rescan",
        ward.nurse.user.name,
    )
    kept = await ward.storage.open_object(ObjectKey.parse(row.object_key))
    assert await kept.read_all() == EICAR
    entry = await AuditLog.get(operation="file_rejected")
    assert entry.blob_name == "eicar.txt" and "Eicar-Test-Signature" in entry.details
    assert await rescan_files(ward.storage) == 0  # nothing left held
