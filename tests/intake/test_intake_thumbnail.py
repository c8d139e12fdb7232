"""An intake item's thumbnail through the real app, database, storage, clamd and worker pool
(issue 51): page 1 of a PDF or an image as a small WebP, drawn ahead by the routing (a turn:
by the turn) and stored beside the item's bytes, served without the worker pool, removed with
the bytes; drawn on demand when none is stored. By the link the inbox's listing gives (for an
<img>) or the session's header; for admins and intake holders only; audited `intake_view` in
the item's folder; a damaged PDF a readable 422, never a 500."""

from __future__ import annotations

import io
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from PIL import Image

from bff.files.names import new_id
from bff.files.previews import NOT_PREVIEWABLE, PDF_DAMAGED
from bff.files.viewer import BUSY
from bff.intake import access, filing, repository, service, thumbnails
from bff.intake.models import IntakeItem
from bff.intake.thumbnails import CONTENT_GONE, draw_ahead
from bff.services import app_services
from bff.workers import Reservation, WorkerBusy
from storage.base import ObjectKey
from storage.errors import NotFound
from tests.helpers import audit_entries, error_message
from tests.intake.desk import (  # noqa: F401 - fixtures
    Desk,
    clamd_fixture,
    desk_fixture,
    open_desk,
    pdf,
    png,
)
from tests.intake.sheet_scans import letter_pdf
from tests.samples import damaged_pdf
from tools.testclamd import RunningClamd

FORBIDDEN = "You don't have permission to do this."
NOT_FOUND = "Intake item not found."


def _webp_size(data: bytes | str) -> tuple[int, int]:
    """A WebP's size (it must be one)."""
    assert isinstance(data, bytes)
    assert data[:4] == b"RIFF" and data[8:12] == b"WEBP", data[:16]
    with Image.open(io.BytesIO(data)) as image:
        assert image.format == "WEBP"
        return image.size


async def _urls(desk: Desk, who: Any) -> dict[str, str | None]:
    """Each item's thumbnailUrl in who's inbox, by file name."""
    return {i["fileName"]: i["thumbnailUrl"] for i in (await desk.inbox(who))["items"]}


async def _thumbnail_views() -> list[Any]:
    return [e for e in await audit_entries("intake_view") if " thumbnail " in e.details]


async def _stored(desk: Desk, object_id: str) -> bytes | None:
    """The thumbnail stored for the bytes object_id, or None."""
    assert desk.storage is not None
    try:
        stream = await desk.storage.open_object(service.thumbnail_key(object_id))
    except NotFound:
        return None
    async with stream:
        return await stream.read_all()


async def _previews(desk: Desk) -> list[str]:
    """Every thumbnail stored under the intake's area."""
    assert desk.storage is not None
    area = ObjectKey.reserved(service.INTAKE_AREA)
    return [i.name async for i in desk.storage.walk(area) if "/.bff-previews/" in i.name]


@contextmanager
def _pool_full(desk: Desk) -> Iterator[None]:
    """Every place in the app's worker pool taken (as 24 first loads at once take them)."""
    pool = app_services(desk.app).workers
    places: list[Reservation] = []
    try:
        while True:
            places.append(pool.reserve())
    except WorkerBusy:
        pass
    try:
        yield
    finally:
        for place in places:
            place.release()


async def test_admins_and_intake_holders_get_a_webp_of_the_first_page(desk: Desk) -> None:
    results = await desk.batch(
        desk.clerk, [("letter.pdf", letter_pdf("Re: a referral")), ("photo.png", png())]
    )
    ids = {r["fileName"]: r["item"]["id"] for r in results}
    # The item is about the nurse's folder: its reads belong in that patient's access report.
    suggestion = {"folderId": desk.folder.id, "container": desk.container.name}
    suggestion |= {"folder": desk.folder.name, "evidence": []}
    assert await repository.set_suggestion(None, ids["letter.pdf"], suggestion)
    urls = await _urls(desk, desk.clerk)
    assert set(urls) == {"letter.pdf", "photo.png"}
    for name, url in urls.items():
        assert url is not None
        assert url.startswith(f"/api/intake/items/{ids[name]}/thumbnail?v=") and "&link=" in url

    # By the listing's link alone, as an <img> asks: no header.
    response = await desk.client.get(urls["letter.pdf"])
    assert response.status_code == 200, await response.get_data(as_text=True)
    assert response.content_type == "image/webp"
    assert response.headers["Cache-Control"] == "private, max-age=300"
    assert response.headers["Content-Disposition"] == "inline"
    width, height = _webp_size(await response.get_data())
    assert max(width, height) == 256 and height > width  # an A4 page, upright
    # An image's own picture, reduced as it would be (a 2x2 PNG stays 2x2).
    photo = await desk.client.get(urls["photo.png"])
    assert _webp_size(await photo.get_data()) == (2, 2)

    # The admin by the session's header.
    by_header = await desk.client.get(
        f"/api/intake/items/{ids['letter.pdf']}/thumbnail", headers=desk.admin.headers
    )
    assert by_header.status_code == 200
    _webp_size(await by_header.get_data())

    # Each picture served is a read of the item, audited in its folder (the letter's suggested
    # folder; the photo, suggested nowhere, in none).
    views = await _thumbnail_views()
    assert [(e.user_id, e.container_name, e.folder_name) for e in views] == [
        (desk.clerk.user.id, desk.container.name, desk.folder.name),
        (desk.clerk.user.id, "", ""),
        (desk.admin.user.id, desk.container.name, desk.folder.name),
    ]
    assert views[0].details == f"item={ids['letter.pdf']} thumbnail status=new"


async def test_a_nurse_without_the_permission_gets_what_an_unknown_item_gets(desk: Desk) -> None:
    [result] = await desk.batch(desk.clerk, [("letter.pdf", pdf(1))])
    item_id = result["item"]["id"]
    url = (await _urls(desk, desk.clerk))["letter.pdf"]
    assert url is not None
    h = desk.nurse.headers
    mine = await desk.client.get(f"/api/intake/items/{item_id}/thumbnail", headers=h)
    unknown = await desk.client.get(f"/api/intake/items/{item_id + 1000}/thumbnail", headers=h)
    assert await error_message(mine, 403) == await error_message(unknown, 403) == FORBIDDEN
    # The clerk's link is for the clerk's session: with the nurse's header it serves the nurse,
    # who is refused the same.
    assert await error_message(await desk.client.get(url, headers=h), 403) == FORBIDDEN
    assert await _thumbnail_views() == []
    # To an intake holder an unknown item is a 404.
    response = await desk.client.get(
        f"/api/intake/items/{item_id + 1000}/thumbnail", headers=desk.clerk.headers
    )
    assert await error_message(response, 404) == NOT_FOUND
    # The link opens this item's thumbnail only: not another item's, not its content.
    other = url.replace(f"/items/{item_id}/", f"/items/{item_id + 1000}/")
    assert (await desk.client.get(other)).status_code == 403
    content = url.replace("/thumbnail?", "/content?")
    assert (await desk.client.get(content)).status_code == 401
    # The permission withdrawn: her links stop at once.
    await desk.grant(desk.clerk, False)
    assert await error_message(await desk.client.get(url), 403) == FORBIDDEN


async def _once(data: bytes) -> AsyncIterator[bytes]:
    yield data


async def test_a_damaged_pdf_is_a_readable_422_never_a_500(desk: Desk) -> None:
    [result] = await desk.batch(desk.clerk, [("fax.pdf", pdf(2))])
    item_id = result["item"]["id"]
    # Its bytes damaged in storage after they were taken in (a disk's fault, a restore), the
    # thumbnail drawn ahead of the good bytes lost with them: drawn on demand, refused.
    row = await desk.routed(item_id)
    assert desk.storage is not None
    broken = b"%PDF-1.7\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n" + b"\x00" * 64
    await desk.storage.write_object(service.item_key(row.object_id), _once(broken))
    assert await desk.storage.delete_object(service.thumbnail_key(row.object_id))
    url = f"/api/intake/items/{item_id}/thumbnail"
    for _ in range(2):  # the second refused at once, remembered
        response = await desk.client.get(url, headers=desk.clerk.headers)
        assert await error_message(response, 422) == PDF_DAMAGED
    assert await _thumbnail_views() == []  # nothing was shown
    # A picture stored since (the bytes restored and drawn again): served at once, the
    # refusal remembered for minutes notwithstanding.
    picture = io.BytesIO()
    Image.new("RGB", (3, 4), "white").save(picture, "WEBP")
    assert await thumbnails.store(desk.storage, row.object_id, picture.getvalue())
    served = await desk.client.get(url, headers=desk.clerk.headers)
    assert served.status_code == 200, await served.get_data(as_text=True)
    assert await served.get_data() == picture.getvalue()


async def test_items_without_a_thumbnail_say_so(desk: Desk) -> None:
    [text, letter] = await desk.batch(
        desk.clerk, [("notes.txt", b"Seen in clinic today.\n"), ("letter.pdf", pdf(1))]
    )
    urls = await _urls(desk, desk.clerk)
    assert urls["notes.txt"] is None and urls["letter.pdf"] is not None
    h = desk.clerk.headers
    response = await desk.client.get(f"/api/intake/items/{text['item']['id']}/thumbnail", headers=h)
    assert await error_message(response, 422) == NOT_PREVIEWABLE
    # Filed: its document is the folder's, its thumbnail too.
    letter_id = letter["item"]["id"]
    assert (await desk.file(desk.clerk, letter_id)).status_code == 200
    response = await desk.client.get(f"/api/intake/items/{letter_id}/thumbnail", headers=h)
    assert await error_message(response, 410) == access.FILED_ELSEWHERE
    filed = (await desk.inbox(desk.clerk, status="filed"))["items"]
    assert [i["thumbnailUrl"] for i in filed] == [None]
    # Deleted and past the trash's days: its bytes gone, no thumbnail.
    [photo] = await desk.batch(desk.clerk, [("photo.png", png())])
    photo_id = photo["item"]["id"]
    assert (await desk.delete(desk.clerk, photo_id, {"reason": "duplicate"})).status_code == 200
    await IntakeItem.filter(id=photo_id).update(object_id=f"{repository.GONE}{photo_id}")
    response = await desk.client.get(f"/api/intake/items/{photo_id}/thumbnail", headers=h)
    assert await error_message(response, 404) == CONTENT_GONE


async def test_a_turned_pdf_gets_a_new_link_and_picture(desk: Desk) -> None:
    [result] = await desk.batch(desk.clerk, [("letter.pdf", letter_pdf("Re: a letter"))])
    item_id = result["item"]["id"]
    before = (await _urls(desk, desk.clerk))["letter.pdf"]
    assert before is not None
    upright = _webp_size(await (await desk.client.get(before)).get_data())
    turned = await desk.client.post(
        f"/api/intake/items/{item_id}/rotate", headers=desk.clerk.headers, json={"degrees": 90}
    )
    assert turned.status_code == 200, await turned.get_data(as_text=True)
    after = (await _urls(desk, desk.clerk))["letter.pdf"]
    assert after is not None and after.split("&")[0] != before.split("&")[0]
    assert _webp_size(await (await desk.client.get(after)).get_data()) == upright[::-1]


async def test_a_received_items_thumbnail_is_stored_and_served_without_the_pool(
    desk: Desk,
) -> None:
    results = await desk.batch(
        desk.clerk,
        [
            ("letter.pdf", letter_pdf("Re: drawn ahead")),
            ("photo.png", png()),
            ("older.png", png()),
            ("notes.txt", b"Seen in clinic today.\n"),
        ],
    )
    ids = {r["fileName"]: r["item"]["id"] for r in results}
    rows = {name: await desk.routed(item_id) for name, item_id in ids.items()}
    # Drawn by the routing and kept beside the item's bytes, named by its content.
    letter = await _stored(desk, rows["letter.pdf"].object_id)
    assert letter is not None
    width, height = _webp_size(letter)
    assert max(width, height) == 256 and height > width
    photo = await _stored(desk, rows["photo.png"].object_id)
    assert photo is not None and _webp_size(photo) == (2, 2)
    assert await _stored(desk, rows["notes.txt"].object_id) is None  # a type without one
    # As for an item taken in before thumbnails were stored: none.
    assert desk.storage is not None
    assert await desk.storage.delete_object(service.thumbnail_key(rows["older.png"].object_id))

    urls = await _urls(desk, desk.clerk)
    with _pool_full(desk):
        for name, stored in (("letter.pdf", letter), ("photo.png", photo)):
            url = urls[name]
            assert url is not None
            response = await desk.client.get(url)
            assert response.status_code == 200, await response.get_data(as_text=True)
            assert response.content_type == "image/webp"
            assert response.headers["Cache-Control"] == "private, max-age=300"
            assert response.headers["Content-Disposition"] == "inline"
            assert await response.get_data() == stored
        # None stored: drawn on demand, as before (a full pool: 503, try again).
        url = urls["older.png"]
        assert url is not None
        busy = await desk.client.get(url)
        assert await error_message(busy, 503) == BUSY
    drawn = await desk.client.get(url)
    assert drawn.status_code == 200
    assert _webp_size(await drawn.get_data()) == (2, 2)
    # Drawn on demand, it is stored as the routing's would be: a burst of first loads before
    # the routing draws each once, and the next load needs no place in the pool.
    assert await _stored(desk, rows["older.png"].object_id) == await drawn.get_data()
    # Each picture served is a read of the item, audited as before.
    views = await _thumbnail_views()
    assert [e.details for e in views] == [
        f"item={ids[name]} thumbnail status=new"
        for name in ("letter.pdf", "photo.png", "older.png")
    ]


async def test_a_turn_stores_a_new_thumbnail_and_removes_the_old(desk: Desk) -> None:
    [result] = await desk.batch(desk.clerk, [("letter.pdf", letter_pdf("Re: turned"))])
    item_id = result["item"]["id"]
    before = await desk.routed(item_id)
    upright = await _stored(desk, before.object_id)
    assert upright is not None
    turned = await desk.client.post(
        f"/api/intake/items/{item_id}/rotate", headers=desk.clerk.headers, json={"degrees": 90}
    )
    assert turned.status_code == 200, await turned.get_data(as_text=True)
    after = await IntakeItem.get(id=item_id)
    assert after.object_id != before.object_id
    assert await _stored(desk, before.object_id) is None  # gone with the old bytes
    sideways = await _stored(desk, after.object_id)
    assert sideways is not None and _webp_size(sideways) == _webp_size(upright)[::-1]
    assert await _previews(desk) == [service.thumbnail_key(after.object_id).path]
    url = (await _urls(desk, desk.clerk))["letter.pdf"]
    assert url is not None
    with _pool_full(desk):
        response = await desk.client.get(url)
        assert response.status_code == 200
        assert await response.get_data() == sideways


async def test_filing_and_the_purge_of_a_deleted_item_remove_its_thumbnail(desk: Desk) -> None:
    results = await desk.batch(desk.clerk, [("filed.png", png()), ("deleted.png", png())])
    filed_id, deleted_id = (r["item"]["id"] for r in results)
    filed, deleted = await desk.routed(filed_id), await desk.routed(deleted_id)
    assert await _stored(desk, filed.object_id) is not None
    assert await _stored(desk, deleted.object_id) is not None
    assert (await desk.file(desk.clerk, filed_id)).status_code == 200
    assert await _stored(desk, filed.object_id) is None  # gone with the intake's copy
    response = await desk.delete(desk.clerk, deleted_id, {"reason": "blank page"})
    assert response.status_code == 200
    # A deleted item's bytes stay for the trash's days, and their thumbnail with them.
    assert await _previews(desk) == [service.thumbnail_key(deleted.object_id).path]
    later = datetime.now(UTC) + timedelta(days=31)
    assert await filing.purge_deleted(desk.storage, 30, now=later) == 1
    assert await _previews(desk) == []


async def test_the_sweep_removes_thumbnails_of_bytes_no_item_names(desk: Desk) -> None:
    [result] = await desk.batch(desk.clerk, [("kept.png", png())])
    row = await desk.routed(result["item"]["id"])
    kept = await _stored(desk, row.object_id)
    assert kept is not None
    # A crash between removing an item's bytes and their thumbnail, or a turn that never
    # committed: a thumbnail of bytes no item names.
    stray = service.thumbnail_key(new_id())
    assert desk.storage is not None
    await desk.storage.write_object(stray, _once(kept))
    grace = timedelta(hours=1)
    assert await service.sweep_orphans(desk.storage, grace) == 0  # not yet
    later = datetime.now(UTC) + timedelta(hours=2)
    assert await service.sweep_orphans(desk.storage, grace, now=later) == 1
    assert await _previews(desk) == [service.thumbnail_key(row.object_id).path]


async def test_a_thumbnail_drawn_while_its_item_was_filed_is_not_left(
    desk: Desk, tmp_path: Path
) -> None:
    data = png()
    [result] = await desk.batch(desk.clerk, [("lab.png", data)])
    row = await desk.routed(result["item"]["id"])
    assert desk.storage is not None
    assert await desk.storage.delete_object(service.thumbnail_key(row.object_id))
    assert (await desk.file(desk.clerk, row.id)).status_code == 200
    # The routing drew it from its copy of the bytes the filing has removed meanwhile.
    copy = tmp_path / "copy.png"
    copy.write_bytes(data)
    services = app_services(desk.app)
    assert not await draw_ahead(row, str(copy), services.workers.run, desk.storage, desk.settings)
    assert await _previews(desk) == []


async def test_a_damaged_pdf_taken_in_has_no_stored_thumbnail_and_a_readable_422(
    database_url: str, run_dir: Path, tmp_path: Path, clamd: RunningClamd
) -> None:
    async with open_desk(
        database_url, run_dir, tmp_path, clamd.address, damaged_pdf="keep"
    ) as desk:
        [result] = await desk.batch(desk.clerk, [("fax.pdf", damaged_pdf())])
        assert result["item"] is not None, result
        row = await desk.routed(result["item"]["id"])
        assert await _stored(desk, row.object_id) is None
        url = f"/api/intake/items/{row.id}/thumbnail"
        for _ in range(2):
            response = await desk.client.get(url, headers=desk.clerk.headers)
            assert await error_message(response, 422) == PDF_DAMAGED
        assert await _thumbnail_views() == []
