"""Thumbnails and the in-app viewer: real PDFs and images rendered in the real worker pool,
stored beside versions, kept in step with overwrites and the trash, served under signed links
with sandboxing headers, one audit entry per viewer opening."""

from __future__ import annotations

import io
import secrets
import struct
import time
import zlib
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import jwt
import pytest
from fpdf import FPDF
from PIL import Image, ImageDraw
from werkzeug.datastructures import FileStorage

from bff.audit.models import AuditLog
from bff.auth.links import sign_link
from bff.files.models import FilePreview, StoredFile
from bff.files.previews import (
    PDF_DAMAGED,
    PDF_PASSWORD,
    REDUCED_SIZE,
    THUMBNAIL_SIZE,
)
from bff.files.reindex import reindex
from bff.files.thumbnails import content_id
from bff.files.viewer import (
    CANNOT_DISPLAY,
    FILE_CHANGED,
    IMAGE_TOO_MUCH_MEMORY,
    NO_CONTENT,
    VIEWER_CONTENT_LINK,
    VIEWER_LINK,
)
from bff.jobs import repository as jobs_repository
from bff.jobs import service as jobs
from bff.jobs.models import KIND_THUMBNAIL
from bff.services import app_services
from bff.users.models import Role
from bff.workers import WorkerPool
from storage.base import PREVIEWS_DIR, ObjectKey
from tests import samples
from tests.conftest import make_settings, started_app
from tests.factories import assign, make_container, make_folder, make_staff
from tests.files.conftest import Ward
from tests.files.test_conversion_limits import _png
from tests.live.conftest import run_live


def pdf_of(pages: int, size: tuple[int, int] = (620, 877)) -> bytes:
    """An image-only PDF (a "scan") of numbered pages."""
    images = []
    for number in range(1, pages + 1):
        image = Image.new("RGB", size, "white")
        draw = ImageDraw.Draw(image)
        draw.rectangle((40, 40, size[0] - 40, size[1] - 40), outline="black", width=6)
        draw.text((80, 80), f"Page {number}", fill="black")
        images.append(image)
    out = io.BytesIO()
    images[0].save(out, "PDF", save_all=True, append_images=images[1:], resolution=75)
    return out.getvalue()


def locked_pdf() -> bytes:
    """A text PDF that opens only with a password."""
    pdf = FPDF()
    pdf.set_encryption(owner_password="owner-secret", user_password="secret")
    pdf.set_font("Helvetica", size=14)
    pdf.add_page()
    pdf.cell(text="Referral")
    return bytes(pdf.output())


def image_of(fmt: str, size: tuple[int, int] = (800, 400)) -> bytes:
    """A picture in format fmt (PNG, JPEG, WEBP)."""
    image = Image.new("RGB", size, (200, 30, 30))
    ImageDraw.Draw(image).ellipse((100, 50, 700, 350), fill=(20, 20, 200))
    out = io.BytesIO()
    image.save(out, fmt)
    return out.getvalue()


def png_bomb(width: int = 40_000, height: int = 40_000) -> bytes:
    """A tiny PNG whose header claims 1.6 gigapixels: refused from the header alone."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = zlib.crc32(kind + data) & 0xFFFFFFFF
        return struct.pack("!I", len(data)) + kind + data + struct.pack("!I", crc)

    header = struct.pack("!IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(b"\x00" * 1024))
        + chunk(b"IEND", b"")
    )


async def run_thumbnail_jobs(ward: Ward) -> dict[str, str]:
    """Claim and run the due thumbnail jobs through the one job mechanism (bff/jobs/), in a
    real job pool: {file name: how each ended} (text jobs are left alone: no OCR here)."""
    services = app_services(ward.app)
    settings = services.settings
    token = secrets.token_hex(8)
    now = datetime.now(UTC)
    until = now + timedelta(minutes=5)
    await jobs_repository.claim([KIND_THUMBNAIL], 100, token, "test", now, until)
    pool = job_pool(ward)
    outcomes = {}
    for job in await jobs_repository.claimed(token):
        outcomes[job.name] = await jobs.run_claimed(
            job, services.storage, pool, settings, jobs.work_dir(settings)
        )
    return outcomes


_POOLS: dict[int, WorkerPool] = {}


def job_pool(ward: Ward) -> WorkerPool:
    """The test's job pool (started once: its processes take a moment to start)."""
    if id(ward.app) not in _POOLS:
        _POOLS[id(ward.app)] = jobs.job_pool(app_services(ward.app).settings)
    return _POOLS[id(ward.app)]


@pytest.fixture(autouse=True)
async def _close_job_pools() -> AsyncIterator[None]:
    yield
    while _POOLS:
        await _POOLS.popitem()[1].close()


async def make(ward: Ward, name: str) -> str:
    """Run a file's thumbnail job: "done", "failed" (with the preview row's reason)."""
    outcome = (await run_thumbnail_jobs(ward)).get(name, "no job")
    if outcome == "failed":
        row = await FilePreview.get(file__folder_id=ward.folder.id, file__name=name)
        return f"failed: {row.reason}"
    return outcome


async def previews(ward: Ward, who: object = None) -> dict[str, str | None]:
    body = await ward.listing(who or ward.nurse)  # type: ignore[arg-type]
    return {blob["name"]: blob["preview"] for blob in body["blobs"]}


async def preview_states(ward: Ward) -> dict[str, str | None]:
    """Each file's previewState in the listing: what a page that loaded before the thumbnail was
    made knows it still awaits (the web app refetches it when its live connection is up)."""
    return {b["name"]: b["previewState"] for b in (await ward.listing(ward.nurse))["blobs"]}


async def stored_previews(ward: Ward) -> list[tuple[str, ...]]:
    where = ObjectKey.folder(ward.container.name, ward.folder.name).child(PREVIEWS_DIR)
    return sorted([ObjectKey.parse(info.name).inner async for info in ward.storage.walk(where)])


def assert_rendered_headers(response: object) -> None:
    headers = response.headers  # type: ignore[attr-defined]
    assert headers["Content-Type"] == "image/webp"
    assert headers["Cache-Control"].startswith("private, max-age=")
    assert "sandbox" in headers["Content-Security-Policy"]
    assert "default-src 'none'" in headers["Content-Security-Policy"]
    assert headers["X-Content-Type-Options"] == "nosniff"


async def test_thumbnails_of_pdfs_and_images(ward: Ward) -> None:
    files = {
        "letter.pdf": pdf_of(1),
        "report.pdf": pdf_of(3),
        "photo.png": image_of("PNG"),
        "photo.jpg": image_of("JPEG", (3000, 1500)),
        "photo.webp": image_of("WEBP", (300, 900)),
        "notes.txt": b"no picture of this",
    }
    for name, data in files.items():
        uploaded = await ward.upload(ward.nurse, name, data)
        assert uploaded.status_code == 201
        assert (await uploaded.get_json())["blob"]["previewState"] == (
            None if name == "notes.txt" else "pending"
        )
    assert set((await previews(ward)).values()) == {None}  # none made yet
    assert await preview_states(ward) == {n: None if n == "notes.txt" else "pending" for n in files}
    outcomes = await run_thumbnail_jobs(ward)
    assert outcomes == dict.fromkeys(set(files) - {"notes.txt"}, "done")  # text: no job
    assert await preview_states(ward) == {n: None if n == "notes.txt" else "ready" for n in files}
    links = await previews(ward)
    assert links["notes.txt"] is None
    lists_before = await AuditLog.filter(operation="file_list").count()
    for name in files:
        if name == "notes.txt":
            continue
        link = links[name]
        assert link is not None and ward.nurse.token not in link
        response = await ward.client.get(link)  # the link alone, as an <img> sends it
        assert response.status_code == 200, await response.get_data()
        assert_rendered_headers(response)
        picture = Image.open(io.BytesIO(await response.get_data()))
        assert picture.format == "WEBP"
        assert max(picture.size) == THUMBNAIL_SIZE or max(picture.size) < THUMBNAIL_SIZE
    # Thumbnails are covered by the listing's entry: fetching them wrote no audit entry.
    assert await AuditLog.filter(operation="file_list").count() == lists_before
    assert await AuditLog.filter(operation="file_view").count() == 0
    report = await FilePreview.get(file__name="report.pdf")
    assert report.page_count == 3
    # The same session's listings within a few minutes give the same URLs (browser cache).
    assert (await previews(ward))["photo.png"] == links["photo.png"]
    # A thumbnail's link opens nothing else: not the file's view.
    query = links["photo.png"].split("?", 1)[1]  # type: ignore[union-attr]
    view = await ward.client.get(ward.url("photo.png", "view") + "?" + query)
    assert view.status_code == 403
    # Previews are not files: the listing never shows them.
    assert sorted(b["name"] for b in (await ward.listing(ward.nurse))["blobs"]) == sorted(files)


@pytest.fixture
async def keeping_ward(database_url: str, run_dir: Path, tmp_path: Path) -> AsyncIterator[Ward]:
    """A ward that keeps a damaged PDF (BFF_DAMAGED_PDF=keep) rather than refusing it."""
    storage_url = f"file://{tmp_path}/storage"
    settings = make_settings(database_url, run_dir, storage_url=storage_url, damaged_pdf="keep")
    async with started_app(settings) as app:
        yield await Ward(app, settings).setup()


async def test_a_damaged_pdf_and_an_image_bomb_are_refused(keeping_ward: Ward) -> None:
    ward = keeping_ward
    damaged = pdf_of(2)[:900]
    assert (await ward.upload(ward.nurse, "damaged.pdf", damaged)).status_code == 201
    assert (await ward.upload(ward.nurse, "bomb.png", png_bomb())).status_code == 201
    assert (await ward.upload(ward.nurse, "locked.pdf", locked_pdf())).status_code == 201
    assert await run_thumbnail_jobs(ward) == dict.fromkeys(
        ("damaged.pdf", "bomb.png", "locked.pdf"), "failed"
    )
    reasons = dict(
        await FilePreview.filter(file__folder_id=ward.folder.id).values_list("file__name", "reason")
    )
    assert reasons["damaged.pdf"] == PDF_DAMAGED
    assert reasons["bomb.png"].startswith("This image has too many pixels")
    assert reasons["locked.pdf"] == PDF_PASSWORD
    assert await previews(ward) == {"bomb.png": None, "damaged.pdf": None, "locked.pdf": None}
    assert set((await preview_states(ward)).values()) == {"failed"}  # none will come
    assert await stored_previews(ward) == []
    # The viewer says why, and the server is unharmed.
    opened = await ward.client.get(ward.url("damaged.pdf", "viewer"), headers=ward.nurse.headers)
    body = await opened.get_json()
    assert opened.status_code == 200 and body["kind"] == "other"
    assert body["reason"] == CANNOT_DISPLAY and body["displayable"] is False
    assert (await ward.upload(ward.nurse, "fine.png", image_of("PNG"))).status_code == 201
    assert await make(ward, "fine.png") == "done"


async def test_versions_and_the_trash_keep_thumbnails_in_step(any_ward: Ward) -> None:
    ward = any_ward
    assert (await ward.upload(ward.nurse, "scan.png", image_of("PNG"))).status_code == 201
    assert await make(ward, "scan.png") == "done"
    first = await stored_previews(ward)
    assert len(first) == 1
    old_link = (await previews(ward))["scan.png"]
    assert old_link is not None
    replaced = await ward.upload(
        ward.nurse, "scan.png", image_of("PNG", (500, 500)), query={"overwrite": "true"}
    )
    assert replaced.status_code == 201
    # The replaced content's thumbnail went with it; the old link shows nothing now.
    assert await stored_previews(ward) == []
    assert (await previews(ward))["scan.png"] is None
    assert (await ward.client.get(old_link)).status_code == 404
    assert await make(ward, "scan.png") == "done"
    second = await stored_previews(ward)
    assert len(second) == 1 and second != first
    # Restoring the earlier version: the current thumbnail goes, the restored one is made anew.
    versions = await (
        await ward.client.get(ward.url("scan.png", "versions"), headers=ward.nurse.headers)
    ).get_json()
    earlier = versions["versions"][1]["versionId"]
    restore = await ward.client.post(
        ward.url("scan.png", "versions", earlier, "restore"), headers=ward.nurse.headers
    )
    assert restore.status_code == 200
    assert await stored_previews(ward) == []
    assert await make(ward, "scan.png") == "done"
    assert [p[2] for p in await stored_previews(ward)] == [f"{earlier}.webp"]
    # A delete to the trash removes the thumbnail and its row; a restore needs a new one.
    deleted = await ward.client.delete(ward.url("scan.png"), headers=ward.admin.headers)
    assert deleted.status_code == 200
    assert await stored_previews(ward) == []
    assert await FilePreview.filter(file__folder_id=ward.folder.id).count() == 0
    back = await ward.client.post(
        ward.url("trash", "scan.png", "restore"), headers=ward.admin.headers
    )
    assert back.status_code == 200
    assert (await previews(ward))["scan.png"] is None
    assert await make(ward, "scan.png") == "done"
    assert (await previews(ward))["scan.png"] is not None


async def test_a_job_for_a_replaced_content_keeps_nothing(ward: Ward) -> None:
    assert (await ward.upload(ward.nurse, "a.png", image_of("PNG"))).status_code == 201
    services = app_services(ward.app)
    token = secrets.token_hex(8)
    now = datetime.now(UTC)
    await jobs_repository.claim([KIND_THUMBNAIL], 10, token, "test", now, now + timedelta(1))
    [claimed] = await jobs_repository.claimed(token)
    # The file is replaced while its old content's thumbnail is being made.
    again = await ward.upload(ward.nurse, "a.png", image_of("JPEG"), query={"overwrite": "true"})
    assert again.status_code == 201
    outcome = await jobs.run_claimed(
        claimed,
        services.storage,
        job_pool(ward),
        services.settings,
        jobs.work_dir(services.settings),
    )
    assert outcome == "superseded"
    assert await stored_previews(ward) == []
    assert await make(ward, "a.png") == "done"  # the new content's job
    assert len(await stored_previews(ward)) == 1


async def _open(ward: Ward, name: str, who: object) -> dict:  # type: ignore[type-arg]
    response = await ward.client.get(ward.url(name, "viewer"), headers=who.headers)  # type: ignore[attr-defined]
    assert response.status_code == 200, await response.get_data()
    body: dict = await response.get_json()  # type: ignore[type-arg]
    return body


async def test_the_viewer_is_one_audited_view_and_pages_are_images(ward: Ward) -> None:
    assert (await ward.upload(ward.nurse, "report.pdf", pdf_of(3))).status_code == 201
    opened = await _open(ward, "report.pdf", ward.nurse)
    assert opened["kind"] == "pdf" and opened["pageCount"] == 3
    assert opened["imageUrl"] is None and opened["textUrl"] is None
    template = opened["pageUrl"]
    assert "{page}" in template and "{width}" in template and ward.nurse.token not in template
    entries = await AuditLog.filter(operation="file_view", blob_name="report.pdf")
    assert [(e.user_id, e.details) for e in entries] == [(ward.nurse.user.id, "in the viewer")]
    for page in (1, 2, 3):
        url = template.replace("{page}", str(page)).replace("{width}", "700")
        response = await ward.client.get(url)
        assert response.status_code == 200, await response.get_data()
        assert_rendered_headers(response)
        picture = Image.open(io.BytesIO(await response.get_data()))
        assert picture.size[0] == 800  # 700 snapped up to a rendered width
    started = time.perf_counter()
    cached = await ward.client.get(template.replace("{page}", "1").replace("{width}", "800"))
    assert cached.status_code == 200
    print(f"cached page in {1000 * (time.perf_counter() - started):.1f} ms")
    # Every page was covered by the one entry of the opening.
    assert await AuditLog.filter(operation="file_view", blob_name="report.pdf").count() == 1
    outside = await ward.client.get(template.replace("{page}", "4").replace("{width}", "800"))
    assert outside.status_code == 404
    too_wide = await ward.client.get(template.replace("{page}", "1").replace("{width}", "9000"))
    assert too_wide.status_code == 400 and (await too_wide.get_json())["message"]
    # An assistant may view too.
    seen = await _open(ward, "report.pdf", ward.assistant)
    page = await ward.client.get(seen["pageUrl"].replace("{page}", "2").replace("{width}", "480"))
    assert page.status_code == 200
    # Once the file changes, the old session's pages are gone (its links name the content).
    again = await ward.upload(ward.nurse, "report.pdf", pdf_of(1), query={"overwrite": "true"})
    assert again.status_code == 201
    stale = await ward.client.get(template.replace("{page}", "1").replace("{width}", "800"))
    assert stale.status_code == 404
    assert (await stale.get_json())["message"] == FILE_CHANGED


async def test_viewer_permissions(ward: Ward) -> None:
    assert (await ward.upload(ward.nurse, "report.pdf", pdf_of(2))).status_code == 201
    template = (await _open(ward, "report.pdf", ward.nurse))["pageUrl"]
    page_1 = template.replace("{page}", "1").replace("{width}", "480")
    # A nurse of another ward: the viewer is 404, and so is a page, even under a link signed
    # for her own session (her session is not assigned this folder).
    stranger = await make_staff(ward.settings, Role.NURSE)
    await assign(stranger.user, ward.container, ward.other)
    refused = await ward.client.get(ward.url("report.pdf", "viewer"), headers=stranger.headers)
    assert refused.status_code == 404
    version_id = (await StoredFile.get(name="report.pdf")).version_id
    path = (ward.container.name, ward.folder.name, "report.pdf", version_id)
    session_id = jwt.decode(stranger.token, options={"verify_signature": False})["sid"]
    forged, _ = sign_link(ward.settings, session_id, (VIEWER_LINK, *path))
    base = page_1.split("&link=")[0]
    assert (await ward.client.get(f"{base}&link={forged}")).status_code == 404
    assert (await ward.client.get(base, headers=stranger.headers)).status_code == 404
    denied = await AuditLog.filter(operation="access_denied", user_id=stranger.user.id)
    assert len(denied) == 3
    # An assigned nurse's header alone does not open pages: only a viewer's link does.
    no_link = await ward.client.get(base, headers=ward.nurse.headers)
    assert no_link.status_code == 404
    assert (await ward.client.get(base)).status_code == 401
    # A viewer link for one file opens no other file's pages.
    assert (await ward.upload(ward.nurse, "other.pdf", pdf_of(1))).status_code == 201
    other = page_1.replace("report.pdf", "other.pdf")
    assert (await ward.client.get(other)).status_code == 403


async def test_the_viewer_shows_images_and_text_without_another_entry(ward: Ward) -> None:
    picture = image_of("PNG")
    assert (await ward.upload(ward.nurse, "photo.png", picture)).status_code == 201
    assert (await ward.upload(ward.nurse, "notes.txt", b"Allergy: penicillin")).status_code == 201
    assert (await ward.upload(ward.nurse, "chest.dcm", samples.dicom())).status_code == 201
    image = await _open(ward, "photo.png", ward.nurse)
    assert image["kind"] == "image" and image["pageUrl"] is None
    response = await ward.client.get(image["imageUrl"])
    assert response.status_code == 200 and await response.get_data() == picture
    assert "sandbox" in response.headers["Content-Security-Policy"]
    text = await _open(ward, "notes.txt", ward.nurse)
    assert text["kind"] == "text"
    assert await (await ward.client.get(text["textUrl"])).get_data() == b"Allergy: penicillin"
    other = await _open(ward, "chest.dcm", ward.nurse)
    assert other["kind"] == "other" and other["reason"] is None
    views = await AuditLog.filter(operation="file_view").values_list("blob_name", flat=True)
    assert sorted(views) == ["chest.dcm", "notes.txt", "photo.png"]
    # The content link opens the content only: not a page, not a reduced copy.
    url = image["imageUrl"].replace("/content?", "/pages/1?width=480&")
    assert (await ward.client.get(url)).status_code == 403
    assert (
        await ward.client.get(image["imageUrl"].replace("/content?", "/image?"))
    ).status_code == 403


def _signed(ward: Ward, who: object, purpose: str, name: str, version_id: str) -> str:
    """A viewer link of `purpose` for who's session, made with the server's own key (what a
    forged or misused link would need to be to get past the signature)."""
    session_id = jwt.decode(who.token, options={"verify_signature": False})["sid"]  # type: ignore[attr-defined]
    path = (purpose, ward.container.name, ward.folder.name, name, version_id)
    return sign_link(ward.settings, session_id, path)[0]


async def test_a_pdf_in_the_viewer_is_pages_only_never_its_original(ward: Ward) -> None:
    """The review's replay: the viewer's page link also opened `/content`, the original PDF,
    inline and without the sandbox. A page link opens pages only, and the content route
    refuses PDFs whatever link it is given (the original opens through the view route)."""
    assert (await ward.upload(ward.nurse, "report.pdf", pdf_of(2))).status_code == 201
    opened = await _open(ward, "report.pdf", ward.nurse)
    base, _, query = opened["pageUrl"].partition("/pages/")
    link = query.split("link=")[1]
    by_page_link = await ward.client.get(f"{base}/content?link={link}")
    assert by_page_link.status_code == 403, await by_page_link.get_data()
    assert b"%PDF" not in await by_page_link.get_data()
    version_id = content_id((await StoredFile.get(name="report.pdf")).version_id)
    content_link = _signed(ward, ward.nurse, VIEWER_CONTENT_LINK, "report.pdf", version_id)
    refused = await ward.client.get(f"{base}/content?link={content_link}")
    assert refused.status_code == 404
    assert (await refused.get_json())["message"] == NO_CONTENT
    # Pages still open by the page link.
    page = await ward.client.get(opened["pageUrl"].replace("{page}", "1").replace("{width}", "480"))
    assert page.status_code == 200
    assert_rendered_headers(page)


def big_png(width: int, height: int) -> bytes:
    """A real PNG of one colour, width x height, written quickly and small (it decodes whole)."""
    return _png(width, height, 8, 2, b"\x20\x40\x60" * width)


async def test_an_image_beyond_the_budget_is_shown_reduced(ward: Ward) -> None:
    """The review's replay: the image viewer handed the browser an image the server refuses to
    decode for a thumbnail. Beyond the thumbnail's budget (12 megapixels) the viewer gets a
    reduced copy rendered in the worker pool, and its original is a download (the review's
    900-megapixel bomb: tests/files/test_viewer_bombs.py)."""
    large = big_png(5000, 4000)  # 20 megapixels, about 60 MB decoded
    assert len(large) < 1_000_000
    assert (await ward.upload(ward.nurse, "xray.png", large)).status_code == 201
    opened = await _open(ward, "xray.png", ward.nurse)
    assert opened["kind"] == "image" and opened["imageReduced"] is True
    assert opened["originalDownload"] is True
    url = opened["imageUrl"]
    assert "/image?link=" in url and "/content" not in url
    response = await ward.client.get(url)
    assert response.status_code == 200, await response.get_data()
    assert_rendered_headers(response)
    picture = Image.open(io.BytesIO(await response.get_data()))
    assert picture.size == (REDUCED_SIZE, REDUCED_SIZE * 4 // 5)
    assert (await ward.client.get(url)).status_code == 200  # again, from the cache
    # Its link opens the reduced copy only, never the original.
    original = await ward.client.get(url.replace("/image?", "/content?"))
    assert original.status_code == 403 and await original.get_data() != large
    # An image within the budget is its original, as before.
    assert (await ward.upload(ward.nurse, "photo.png", image_of("PNG"))).status_code == 201
    photo = await _open(ward, "photo.png", ward.nurse)
    assert photo["imageReduced"] is False and photo["originalDownload"] is False
    assert "/content?link=" in photo["imageUrl"]
    # Each opening is one audited view; the pictures are covered by it.
    views = await AuditLog.filter(operation="file_view").values_list("blob_name", flat=True)
    assert sorted(views) == ["photo.png", "xray.png"]


async def test_a_picture_over_the_pools_memory_is_refused_and_the_pool_serves_on(
    database_url: str, run_dir: Path, tmp_path: Path
) -> None:
    """The viewer's worker pool has a memory limit (BFF_CONVERSION_MEMORY_MB; it had none): a
    reduced copy that needs more (an 81-megapixel PNG decoded by Pillow, without libvips, over
    300 MB decoded, under 256 MB) is a 422 that says why, its worker is ended, and the next
    picture renders in a new one."""
    settings = make_settings(
        database_url,
        run_dir,
        storage_url=f"file://{tmp_path}/storage",
        conversion_memory_mb=256,
        vipsthumbnail="",
    )
    async with started_app(settings) as app:
        ward = await Ward(app, settings).setup()
        pool = app_services(app).workers
        assert (await ward.upload(ward.nurse, "scan.png", big_png(9000, 9000))).status_code == 201
        opened = await _open(ward, "scan.png", ward.nurse)
        assert opened["imageReduced"] is True
        before = set(pool.pids)
        assert before
        response = await ward.client.get(opened["imageUrl"])
        assert response.status_code == 422, await response.get_data()
        assert (await response.get_json())["message"] == IMAGE_TOO_MUCH_MEMORY
        assert not (pool.pids & before), "the worker that ran out of memory was ended"
        assert (await ward.upload(ward.nurse, "report.pdf", pdf_of(1))).status_code == 201
        template = (await _open(ward, "report.pdf", ward.nurse))["pageUrl"]
        page = await ward.client.get(template.replace("{page}", "1").replace("{width}", "480"))
        assert page.status_code == 200


async def test_reindex_leaves_thumbnails_out_and_records_missing_ones(any_ward: Ward) -> None:
    ward = any_ward
    assert (await ward.upload(ward.nurse, "scan.png", image_of("PNG"))).status_code == 201
    assert (await ward.upload(ward.nurse, "letter.pdf", pdf_of(1))).status_code == 201
    assert await run_thumbnail_jobs(ward) == {"scan.png": "done", "letter.pdf": "done"}
    c, f = ward.container.name, ward.folder.name
    orphan = f"{c}/{f}/{PREVIEWS_DIR}/gone.png/20260101T000000000000Z-00000000.webp"
    key = ObjectKey.parse(orphan)
    await ward.storage.write_object(key, _chunks(b"RIFF"), content_type="image/webp")
    [lost] = [p for p in await stored_previews(ward) if p[1] == "letter.pdf"]
    assert await ward.storage.delete_object(ObjectKey.folder(c, f).child(*lost))
    report = await reindex(ward.storage)
    assert report.files_added == 0 and report.files_removed == 0  # previews are not files
    assert report.thumbnails_removed == 1 and report.thumbnails_recorded == 1
    assert sorted(b["name"] for b in (await ward.listing(ward.nurse))["blobs"]) == [
        "letter.pdf",
        "scan.png",
    ]
    assert await run_thumbnail_jobs(ward) == {"letter.pdf": "done"}
    assert sorted(p[1] for p in await stored_previews(ward)) == ["letter.pdf", "scan.png"]
    again = await reindex(ward.storage)
    assert again.thumbnails_removed == 0 and again.thumbnails_recorded == 0


async def _chunks(data: bytes) -> AsyncIterator[bytes]:
    yield data


async def test_file_preview_reaches_the_folders_room(
    database_url: str, run_dir: Path, tmp_path: Path
) -> None:
    """The real background jobs make the thumbnail; its event reaches the folder's team only."""
    settings = make_settings(
        database_url,
        run_dir,
        storage_url=f"file://{tmp_path}/storage",
        job_workers=1,
        job_poll_seconds=0.2,
        job_retry_seconds=0.1,
    )
    async for live in run_live(settings):
        container = await make_container()
        folder = await make_folder(container, "patient-1")
        nurse = await make_staff(live.settings, Role.NURSE)
        outsider = await make_staff(live.settings, Role.NURSE)
        await assign(nurse.user, container, folder)
        await assign(outsider.user, container, await make_folder(container, "patient-2"))
        nurse_ears = await live.listener(nurse.token, "nurse")
        outsider_ears = await live.listener(outsider.token, "outsider")
        pdf = FPDF()
        pdf.set_font("Helvetica", size=14)
        pdf.add_page()
        pdf.cell(text="Discharge letter")
        upload = await live.app.test_client().post(
            f"/api/blobs/{container.name}/patient-1",
            files={"file": FileStorage(io.BytesIO(bytes(pdf.output())), filename="letter.pdf")},
            headers=nurse.headers,
        )
        assert upload.status_code == 201
        heard = await nurse_ears.wait_for("file:preview", within=60)
        assert heard == {"container": container.name, "folder": "patient-1", "name": "letter.pdf"}
        # The file's other job (its text) ends too before the server stops: this test is about
        # the event, not about a stop in the middle of a job.
        await nurse_ears.wait_for("file:indexed", within=60)
        listing = await live.app.test_client().get(
            f"/api/blobs/{container.name}/patient-1", headers=nurse.headers
        )
        [blob] = (await listing.get_json())["blobs"]
        assert blob["preview"] is not None
        assert "file:preview" not in outsider_ears.names()
