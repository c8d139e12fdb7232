"""BFF_VIEW_OFFLOAD: the view route still decides and audits; s3 redirects to a short-lived
presigned URL (moto's server) that answers with the view's headers; nginx hands the object's
path to nginx (tests/cluster/test_view_offload.py runs that through real nginx)."""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator
from io import BytesIO
from pathlib import Path
from urllib.parse import parse_qs, quote, urlsplit

import aiohttp
import pytest
from aiobotocore.session import AioSession
from PIL import Image

from bff.audit.models import AuditLog
from bff.files.delivery import accel_path
from config.settings import SettingsError
from storage.base import InvalidName, ObjectKey
from tests import samples
from tests.conftest import REGION, make_settings, started_app
from tests.files.conftest import WITH_HTML, Ward
from tests.files.test_previews import png_bomb

CONTENT = samples.pdf("Scan " * 20_000)  # a real PDF of about 100 KB
NAME = "Résultat final; v2 #1?.pdf"


@pytest.fixture
async def s3_ward(
    database_url: str, run_dir: Path, s3_endpoint: str, s3_session: AioSession
) -> AsyncIterator[Ward]:
    bucket = "offload-" + secrets.token_hex(6)
    async with s3_session.create_client("s3", endpoint_url=s3_endpoint, region_name=REGION) as s3:
        await s3.create_bucket(Bucket=bucket)
    settings = make_settings(
        database_url,
        run_dir,
        storage_url=f"s3://{bucket}/records?endpoint_url={s3_endpoint}&region={REGION}",
        view_offload="s3",
        view_offload_seconds=30,
        allowed_types=WITH_HTML,  # a web page's offloaded download is tested
    )
    async with started_app(settings) as app:
        yield await Ward(app, settings).setup()


async def test_s3_offload_redirects_to_a_presigned_url_with_the_views_headers(
    s3_ward: Ward,
) -> None:
    ward = s3_ward
    assert (await ward.upload(ward.nurse, NAME, CONTENT)).status_code == 201
    link = await ward.client.get(ward.url(NAME, "url"), headers=ward.nurse.headers)
    assert link.status_code == 200, await link.get_data()
    url = (await link.get_json())["url"]
    response = await ward.client.get(url)
    assert response.status_code == 302
    assert response.headers["Cache-Control"] == "no-store"
    assert response.headers["Referrer-Policy"] == "no-referrer"
    assert await response.get_data() == b""
    target = response.headers["Location"]
    query = parse_qs(urlsplit(target).query)
    assert query["X-Amz-Expires"] == ["30"]
    # The response headers are part of the signed query (S3 refuses a changed one).
    assert query["response-content-type"] == ["application/pdf"]
    assert "X-Amz-Signature" in query
    assert ward.nurse.token not in target
    assert await AuditLog.filter(operation="file_view", blob_name=NAME).count() == 1

    async with aiohttp.ClientSession() as http:
        async with http.get(target) as whole:
            assert whole.status == 200
            assert await whole.read() == CONTENT
            assert whole.headers["Content-Type"] == "application/pdf"
            assert whole.headers["Content-Disposition"] == (
                'inline; filename="R_sultat final_ v2 #1?.pdf"; '
                f"filename*=UTF-8''{quote(NAME, safe='')}"
            )
            assert whole.headers["Cache-Control"] == "private, no-store"
        async with http.get(target, headers={"Range": "bytes=100-199"}) as part:
            assert part.status == 206
            assert await part.read() == CONTENT[100:200]

    # Still the BFF's decision: no link, no redirect; another folder's file is 404.
    assert (await ward.client.get(ward.url(NAME, "view"))).status_code == 401
    other = await ward.client.get(
        ward.url(NAME, "view", folder=ward.other), headers=ward.nurse.headers
    )
    assert other.status_code == 404


async def test_s3_offload_keeps_downloads_as_downloads_and_profile_images_on_our_origin(
    s3_ward: Ward,
) -> None:
    ward = s3_ward
    assert (await ward.upload(ward.nurse, "page.html", b"<script>1</script>")).status_code == 201
    response = await ward.client.get(ward.url("page.html", "view"), headers=ward.nurse.headers)
    assert response.status_code == 302
    async with aiohttp.ClientSession() as http, http.get(response.headers["Location"]) as html:
        assert html.headers["Content-Disposition"].startswith("attachment;")
        assert html.headers["Content-Type"] == "text/html"
    photo = BytesIO()
    Image.new("RGB", (300, 300), (10, 120, 200)).save(photo, format="JPEG")
    uploaded = await ward.upload(ward.nurse, "me.jpg", photo.getvalue(), isProfileImage="true")
    assert uploaded.status_code == 201
    # Shown inside the app's pages, whose CSP allows images from its own origin only.
    image = await ward.client.get(ward.url("profile-image"), headers=ward.nurse.headers)
    assert image.status_code == 200
    assert image.headers["Content-Type"] == "image/jpeg"
    assert (await image.get_data())[:2] == b"\xff\xd8"


async def test_s3_offload_signs_an_image_bombs_original_as_a_download(s3_ward: Ward) -> None:
    """An image whose header says more pixels than a browser is given (the review's 900
    megapixels) is a download from the bucket too: the signed disposition says so."""
    ward = s3_ward
    assert (await ward.upload(ward.nurse, "bomb.png", png_bomb(30_000, 30_000))).status_code == 201
    response = await ward.client.get(ward.url("bomb.png", "view"), headers=ward.nurse.headers)
    assert response.status_code == 302
    async with aiohttp.ClientSession() as http, http.get(response.headers["Location"]) as bomb:
        assert bomb.status == 200
        assert bomb.headers["Content-Disposition"].startswith("attachment;")
        assert bomb.headers["Content-Type"] == "image/png"


async def test_nginx_offload_hands_nginx_the_objects_path(
    database_url: str, run_dir: Path, tmp_path: Path
) -> None:
    settings = make_settings(
        database_url, run_dir, storage_url=f"file://{tmp_path}/storage", view_offload="nginx"
    )
    async with started_app(settings) as app:
        ward = await Ward(app, settings).setup()
        assert (await ward.upload(ward.nurse, NAME, CONTENT)).status_code == 201
        response = await ward.client.get(
            ward.url(NAME, "view"), headers={**ward.nurse.headers, "Range": "bytes=0-9"}
        )
        assert response.status_code == 200  # nginx answers the Range
        assert await response.get_data() == b""
        assert response.headers["X-Accel-Redirect"] == (
            f"/_bff_storage/{ward.container.name}/patient-1/{quote(NAME, safe='')}"
        )
        assert response.headers["Content-Type"] == "application/pdf"
        assert response.headers["Content-Security-Policy"].startswith("default-src 'none'")
        assert response.headers["Content-Disposition"].startswith("inline;")
        assert await AuditLog.filter(operation="file_view").count() == 1
        outside = await ward.client.get(
            ward.url(NAME, "view"), headers={**ward.nurse.headers, "Range": "bytes=999999-"}
        )
        assert outside.status_code == 416


async def test_an_offloaded_view_is_sized_by_the_index_without_asking_storage(
    database_url: str, run_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """nginx answers Range against the stored file itself: the decision needs no stat."""
    settings = make_settings(
        database_url, run_dir, storage_url=f"file://{tmp_path}/storage", view_offload="nginx"
    )
    async with started_app(settings) as app:
        ward = await Ward(app, settings).setup()
        assert (await ward.upload(ward.nurse, NAME, CONTENT)).status_code == 201

        async def no_stat(*args: object, **kwargs: object) -> None:
            raise AssertionError("an offloaded view asked storage for the size")

        monkeypatch.setattr(ward.storage, "stat_object", no_stat)
        headers = {**ward.nurse.headers, "Range": f"bytes={len(CONTENT) - 10}-"}
        inside = await ward.client.get(ward.url(NAME, "view"), headers=headers)
        assert inside.status_code == 200
        assert "X-Accel-Redirect" in inside.headers
        headers["Range"] = f"bytes={len(CONTENT)}-"
        outside = await ward.client.get(ward.url(NAME, "view"), headers=headers)
        assert outside.status_code == 416
        assert outside.headers["Content-Range"] == f"bytes */{len(CONTENT)}"
        assert await AuditLog.filter(operation="file_view").count() == 1


@pytest.mark.parametrize("offload", ["none", "nginx"])
async def test_a_view_of_something_missing_names_it_and_records_no_view(
    database_url: str, run_dir: Path, tmp_path: Path, offload: str
) -> None:
    """One query finds a viewed object by its names; when it finds nothing, the 404 still says
    what is missing."""
    settings = make_settings(
        database_url, run_dir, storage_url=f"file://{tmp_path}/storage", view_offload=offload
    )
    async with started_app(settings) as app:
        ward = await Ward(app, settings).setup()
        assert (await ward.upload(ward.nurse, "a.pdf", CONTENT)).status_code == 201
        container = ward.container.name
        cases = {
            "/api/blobs/no-such-ward/patient-1/a.pdf/view": "Container not found",
            f"/api/blobs/{container}/no-such-patient/a.pdf/view": "Folder not found",
            ward.url("b.pdf", "view"): "File not found",
            ward.url("a.pdf", "versions", "v-unknown", "view"): "Version not found",
            ward.url("b.pdf", "versions", "v-unknown", "view"): "File not found",
            ward.url("profile-image"): "This folder has no profile image.",
        }
        for url, message in cases.items():
            response = await ward.client.get(url, headers=ward.admin.headers)
            assert response.status_code == 404, url
            assert (await response.get_json())["message"] == message, url
        views = ("file_view", "version_view", "profile_view")
        assert await AuditLog.filter(operation__in=views).count() == 0
        found = await ward.client.get(ward.url("a.pdf", "view"), headers=ward.admin.headers)
        assert found.status_code == 200
        assert await AuditLog.filter(operation="file_view").count() == 1


def test_object_keys_cannot_leave_the_root() -> None:
    key = ObjectKey.reserved("ward", "patient-1", ".bff-versions", "3", "a b?.pdf")
    assert accel_path(key) == "/_bff_storage/ward/patient-1/.bff-versions/3/a%20b%3F.pdf"
    for bad in ("..", ".", "", "a/b", "..%2Fx", "%2e%2e", "a\x00b", "a\\b"):
        with pytest.raises(InvalidName):
            ObjectKey(("ward", bad, "x"))
    with pytest.raises(InvalidName):
        ObjectKey.file("ward", "patient-1", ".bff-versions")  # people never name reserved ones
    with pytest.raises(InvalidName):
        ObjectKey.reserved("ward", "patient-1", "plain.txt")


def test_an_offload_needs_its_storage() -> None:
    with pytest.raises(SettingsError, match="BFF_VIEW_OFFLOAD"):
        make_settings("sqlite://:memory:", Path("var"), view_offload="s3")
    with pytest.raises(SettingsError, match="BFF_VIEW_OFFLOAD"):
        make_settings("sqlite://:memory:", Path("var"), storage_url="s3://b", view_offload="nginx")
