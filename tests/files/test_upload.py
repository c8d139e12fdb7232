"""Uploads: plain files on both backends, limits, name checks, clashes, permissions, audit."""

from __future__ import annotations

from io import BytesIO
from pathlib import Path
from typing import Any

import pytest
from werkzeug.datastructures import FileStorage

from bff.audit.models import AuditLog
from bff.audit.signed import PREFIX as AUDIT_PREFIX
from bff.files.models import StoredFile
from tests import samples
from tests.conftest import make_settings, started_app
from tests.factories import make_file
from tests.files.conftest import Ward


async def _audit_ops(blob: str) -> list[str]:
    return [e.operation for e in await AuditLog.filter(blob_name=blob).order_by("id")]


async def test_upload_lists_and_stores_the_file(any_ward: Ward) -> None:
    ward = any_ward
    results = samples.pdf("Lab results")
    response = await ward.upload(ward.nurse, "Lab results 2026.pdf", results)
    assert response.status_code == 201
    body = await response.get_json()
    assert body["message"] == "File uploaded successfully"
    assert body["rtfConversion"] == {"converted": False, "txtFileName": None}
    assert body["replaced"] is False
    listing = await ward.listing(ward.assistant)
    assert listing["hasProfileImage"] is False
    assert listing["maxUploadBytes"] == 50 * 1024 * 1024  # the web app refuses larger first
    [blob] = listing["blobs"]
    assert blob["name"] == "Lab results 2026.pdf"
    assert blob["contentType"] == "application/pdf"  # from the name, not the declared octet-stream
    assert blob["contentLength"] == len(results)
    assert blob["isProfileImage"] is False and blob["isConvertedFromRtf"] is False
    assert await ward.stored("Lab results 2026.pdf") == results
    entry = await AuditLog.get(operation="file_upload", blob_name="Lab results 2026.pdf")
    assert (entry.user_id, entry.container_name, entry.folder_name) == (
        ward.nurse.user.id,
        ward.container.name,
        ward.folder.name,
    )


async def test_listing_is_sorted_by_name_and_audited(ward: Ward) -> None:
    for name in ("b.txt", "a.txt", "c.txt"):
        assert (await ward.upload(ward.nurse, name, b"x")).status_code == 201
    listing = await ward.listing(ward.assistant)
    assert [b["name"] for b in listing["blobs"]] == ["a.txt", "b.txt", "c.txt"]
    assert await AuditLog.filter(operation="file_list", user_id=ward.assistant.user.id).count() == 1


async def test_same_name_is_409_unless_overwrite(any_ward: Ward) -> None:
    ward = any_ward
    assert (await ward.upload(ward.nurse, "notes.txt", b"first")).status_code == 201
    clash = await ward.upload(ward.nurse, "notes.txt", b"second")
    assert clash.status_code == 409
    assert "already exists" in (await clash.get_json())["message"]
    assert await ward.stored("notes.txt") == b"first"
    replaced = await ward.upload(ward.nurse, "notes.txt", b"second", query={"overwrite": "true"})
    assert replaced.status_code == 201
    assert (await replaced.get_json())["replaced"] is True
    assert await ward.stored("notes.txt") == b"second"
    [blob] = (await ward.listing(ward.nurse))["blobs"]
    assert blob["contentLength"] == len(b"second")
    # The form field works as well as the query string.
    again = await ward.upload(ward.nurse, "notes.txt", b"third!", overwrite="true")
    assert again.status_code == 201
    assert await StoredFile.filter(name="notes.txt").count() == 1


@pytest.mark.parametrize(
    "name",
    [
        "../escape.txt",
        "..",
        ".",
        "a/b.txt",
        "a\\b.txt",
        "..%2Fescape.txt",
        "%2e%2e",
        "bad\x01name.txt",
        "bad\x00name.txt",
        "cod\u202etxt.exe",
        "x" * 252 + ".txt",
        ".rtf-original.note.rtf",
        ".upload-0123.part",
    ],
)
async def test_unsafe_or_reserved_names_are_400_and_nothing_is_written(
    ward: Ward, name: str
) -> None:
    response = await ward.form_upload(
        ward.nurse, [("filename", None, name.encode()), ("file", "ok.txt", b"data")]
    )
    assert response.status_code == 400
    assert (await response.get_json())["message"].startswith("Invalid file name")
    assert await StoredFile.all().count() == 0
    assert await ward.storage.list_files(ward.container.name, ward.folder.name) == []


async def test_the_profile_image_name_is_kept_for_profile_uploads(ward: Ward) -> None:
    response = await ward.upload(ward.nurse, "patient-profile.jpg", b"\xff\xd8")
    assert response.status_code == 400
    assert "profile image" in (await response.get_json())["message"]


async def test_a_file_over_the_limit_is_413_and_nothing_is_written(
    database_url: str, run_dir: Any
) -> None:
    settings = make_settings(database_url, run_dir, max_upload_mb=1)
    async with started_app(settings) as app:
        ward = await Ward(app, settings).setup()
        big = b"x" * (1024 * 1024 + 1)
        response = await ward.upload(ward.nurse, "scan.bin", big)
        assert response.status_code == 413
        assert (await response.get_json())["message"] == "The file is too large. The limit is 1MB."
        assert await ward.stored("scan.bin") is None
        assert await ward.storage.list_files(ward.container.name, ward.folder.name) == []
        assert await StoredFile.all().count() == 0
        # A file exactly at the limit is fine.
        ok = await ward.upload(ward.nurse, "scan.bin", big[:-1])
        assert ok.status_code == 201


async def test_a_declared_oversized_body_is_refused_before_reading(ward: Ward) -> None:
    limit = ward.settings.max_upload_bytes
    response = await ward.client.post(
        ward.url(),
        data=b"--b\r\n",
        headers={
            **ward.nurse.headers,
            "Content-Type": "multipart/form-data; boundary=b",
            "Content-Length": str(limit * 2),
        },
    )
    assert response.status_code == 413


async def test_missing_file_and_wrong_content_type_are_400(ward: Ward) -> None:
    no_file = await ward.form_upload(ward.nurse, [("filename", None, b"x.txt")])
    assert no_file.status_code == 400
    assert (await no_file.get_json())["message"] == "Please select a file to upload"
    as_json = await ward.client.post(ward.url(), json={"file": "x"}, headers=ward.nurse.headers)
    assert as_json.status_code == 400
    assert (await as_json.get_json())["message"] == "Send the file as multipart/form-data."


async def test_a_truncated_form_is_400_and_leaves_nothing(ward: Ward) -> None:
    body = (
        b"--XyZ\r\n"
        b'Content-Disposition: form-data; name="file"; filename="cut.txt"\r\n'
        b"Content-Type: text/plain\r\n\r\n" + b"partial data, and then the connection ends"
    )
    response = await ward.client.post(
        ward.url(),
        data=body,
        headers={**ward.nurse.headers, "Content-Type": "multipart/form-data; boundary=XyZ"},
    )
    assert response.status_code == 400
    assert (await response.get_json())["message"] == "The upload was incomplete. Please try again."
    assert await ward.storage.list_files(ward.container.name, ward.folder.name) == []


async def test_a_second_file_in_one_form_is_refused(ward: Ward) -> None:
    body = b"".join(
        [
            b'--B\r\nContent-Disposition: form-data; name="file"; filename="one.txt"\r\n\r\n1\r\n',
            b'--B\r\nContent-Disposition: form-data; name="file"; filename="two.txt"\r\n\r\n2\r\n',
            b"--B--\r\n",
        ]
    )
    response = await ward.client.post(
        ward.url(),
        data=body,
        headers={**ward.nurse.headers, "Content-Type": "multipart/form-data; boundary=B"},
    )
    assert response.status_code == 400
    assert await ward.stored("one.txt") is None


async def test_fields_before_the_file_name_and_flag_the_upload(ward: Ward) -> None:
    response = await ward.form_upload(
        ward.nurse,
        [("filename", None, b"Discharge letter.txt"), ("file", "blob", b"letter")],
    )
    assert response.status_code == 201
    assert await ward.stored("Discharge letter.txt") == b"letter"
    clash = await ward.form_upload(
        ward.nurse, [("filename", None, b"Discharge letter.txt"), ("file", "blob", b"v2")]
    )
    assert clash.status_code == 409
    replaced = await ward.form_upload(
        ward.nurse,
        [
            ("overwrite", None, b"true"),
            ("filename", None, b"Discharge letter.txt"),
            ("file", "blob", b"v2"),
        ],
    )
    assert replaced.status_code == 201
    assert await ward.stored("Discharge letter.txt") == b"v2"


async def test_a_filename_field_after_the_file_must_agree(ward: Ward) -> None:
    def form(trailing_name: str) -> bytes:
        return b"".join(
            [
                b'--B\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\n',
                b"alpha\r\n",
                b'--B\r\nContent-Disposition: form-data; name="filename"\r\n\r\n',
                trailing_name.encode() + b"\r\n",
                b"--B--\r\n",
            ]
        )

    headers = {**ward.nurse.headers, "Content-Type": "multipart/form-data; boundary=B"}
    same = await ward.client.post(ward.url(), data=form("a.txt"), headers=headers)
    assert same.status_code == 201
    other = await ward.client.post(
        ward.url(), data=form("b.txt"), headers=headers, query_string={"overwrite": "true"}
    )
    assert other.status_code == 400
    assert await ward.stored("b.txt") is None
    assert await ward.stored("a.txt") == b"alpha"


async def test_who_may_upload(ward: Ward) -> None:
    assistant = await ward.upload(ward.assistant, "x.txt", b"x")
    assert assistant.status_code == 403
    unassigned = await ward.upload(ward.nurse, "x.txt", b"x", folder=ward.other)
    assert unassigned.status_code == 404
    assert (await unassigned.get_json())["message"] == "Folder not found"
    admin = await ward.upload(ward.admin, "x.txt", b"x", folder=ward.other)
    assert admin.status_code == 201
    anonymous = await ward.client.post(ward.url(), form={"filename": "x"})
    assert anonymous.status_code == 401
    assert await ward.stored("x.txt") is None


async def test_unknown_container_and_folder_are_404(ward: Ward) -> None:
    url = f"/api/blobs/{ward.container.name}/patient-404"
    missing_folder = await ward.client.get(url, headers=ward.admin.headers)
    assert missing_folder.status_code == 404
    assert (await missing_folder.get_json())["message"] == "Folder not found"
    missing_container = await ward.client.get(
        "/api/blobs/nowhere/patient-1", headers=ward.admin.headers
    )
    assert (await missing_container.get_json())["message"] == "Container not found"


BAIT = b"bait: whatever reads this reached outside the folder it was given"
# Each path as sent, and where it would lead under the storage root if its names were joined
# onto it unchecked: a bait file (or a folder holding one) waits at each of those places.
TRAVERSALS = {
    "/api/blobs/..%2F..%2Fetc/passwd": "../../etc/passwd/bait.txt",
    "/api/blobs/%2e%2e/%2e%2e": "../../bait.txt",
    "/api/blobs/{c}/..%2Fpatient-2": "patient-2/bait.txt",
    "/api/blobs/{c}/patient-1/..%2F..%2Fsecret": "secret",
    "/api/blobs/{c}/patient-1/..%2F..%2Fsecret/view": "secret",
    "/api/blobs/{c}/patient-1/%2e%2e/view": "{c}/bait.txt",
    "/api/blobs/{c}/patient-1/..%252Fx/view": "{c}/patient-1/..%2Fx",
}


def _tree(root: Path) -> dict[str, bytes | None]:
    """Every file (with its bytes) and folder (None) under root, but the audit log's own area
    (its signed head follows the log's commits in the background: bff/audit/head.py)."""
    return {
        str(p.relative_to(root)): (p.read_bytes() if p.is_file() else None)
        for p in sorted(root.rglob("*"))
        if AUDIT_PREFIX not in p.relative_to(root).parts
    }


@pytest.mark.parametrize("path", sorted(TRAVERSALS))
async def test_path_traversal_attempts_never_reach_storage(
    database_url: str, run_dir: Path, tmp_path: Path, path: str
) -> None:
    """Reading, uploading and deleting through an escaping name is refused before storage is
    touched: nothing under (or above) the storage root is read, written or removed."""
    root = tmp_path / "outer" / "inner" / "storage"
    settings = make_settings(database_url, run_dir, storage_url=f"file://{root}")
    async with started_app(settings) as app:
        ward = await Ward(app, settings).setup()
        await make_file(ward.storage, ward.folder, "kept.txt", b"kept")
        c = ward.container.name
        bait = (root / TRAVERSALS[path].replace("{c}", c)).resolve()
        assert bait.is_relative_to(tmp_path)
        bait.parent.mkdir(parents=True, exist_ok=True)
        bait.write_bytes(BAIT)
        before = _tree(tmp_path)
        url = path.replace("{c}", c)
        for who in (ward.admin, ward.nurse):
            for method in ("GET", "POST", "DELETE"):
                upload = FileStorage(BytesIO(b"written through a traversal"), filename="x.txt")
                response = await ward.client.open(
                    url,
                    method=method,
                    headers=who.headers,
                    files={"file": upload} if method == "POST" else None,
                )
                data = await response.get_data()
                assert 400 <= response.status_code < 500, (method, url, response.status_code)
                assert "message" in await response.get_json(), (method, url)
                assert BAIT not in data
        assert _tree(tmp_path) == before
        file_operations = ["file_list", "file_upload", "file_view", "file_delete"]
        assert not await AuditLog.filter(operation__in=file_operations).exists()
