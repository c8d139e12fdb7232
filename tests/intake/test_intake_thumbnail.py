"""An intake item's thumbnail through the real app, database, storage, clamd and worker pool
(issue 51): page 1 of a PDF or an image as a small WebP, by the link the inbox's listing gives
(for an <img>) or the session's header; for admins and intake holders only; audited
`intake_view` in the item's folder; a damaged PDF a readable 422, never a 500."""

from __future__ import annotations

import io
from collections.abc import AsyncIterator
from typing import Any

from PIL import Image

from bff.files.previews import NOT_PREVIEWABLE, PDF_DAMAGED
from bff.intake import access, repository, service
from bff.intake.models import IntakeItem
from bff.intake.thumbnails import CONTENT_GONE
from tests.helpers import audit_entries, error_message
from tests.intake.desk import (  # noqa: F401 - fixtures
    Desk,
    clamd_fixture,
    desk_fixture,
    pdf,
    png,
)
from tests.intake.sheet_scans import letter_pdf

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
    # Its bytes damaged in storage after they were taken in (a disk's fault, a restore).
    row = await IntakeItem.get(id=item_id)
    assert desk.storage is not None
    broken = b"%PDF-1.7\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n" + b"\x00" * 64
    await desk.storage.write_object(service.item_key(row.object_id), _once(broken))
    url = f"/api/intake/items/{item_id}/thumbnail"
    for _ in range(2):  # the second refused at once, remembered
        response = await desk.client.get(url, headers=desk.clerk.headers)
        assert await error_message(response, 422) == PDF_DAMAGED
    assert await _thumbnail_views() == []  # nothing was shown


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
