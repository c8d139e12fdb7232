"""Splitting an intake PDF by page ranges into new items and turning its pages (issue 51),
through the real app, database, storage, clamd and worker pool."""

from __future__ import annotations

import io

import pikepdf

from bff.intake.models import IntakeItem, Status
from tests.helpers import audit_entries, error_message
from tests.intake.desk import (  # noqa: F401 - fixtures
    Desk,
    clamd_fixture,
    desk_fixture,
    pdf,
    png,
)


def _pages(data: bytes) -> int:
    with pikepdf.open(io.BytesIO(data)) as document:
        return len(document.pages)


def _rotations(data: bytes) -> list[int]:
    with pikepdf.open(io.BytesIO(data)) as document:
        return [int(page.obj.get("/Rotate", 0)) for page in document.pages]


async def _content(desk: Desk, item_id: int) -> bytes:
    response = await desk.client.get(
        f"/api/intake/items/{item_id}/content", headers=desk.clerk.headers
    )
    assert response.status_code == 200
    data = await response.get_data(as_text=False)
    return data


async def test_a_split_makes_an_item_of_each_range_and_retires_the_batch(desk: Desk) -> None:
    [result] = await desk.batch(desk.clerk, [("batch.pdf", pdf(5))])
    batch_id = result["item"]["id"]
    url = f"/api/intake/items/{batch_id}/split"
    h = desk.clerk.headers
    for ranges, status in (([[0, 1]], 400), ([[4, 6]], 400), ([[3, 2]], 400), ([[1, 5]], 400)):
        response = await desk.client.post(url, headers=h, json={"ranges": ranges})
        assert response.status_code == status, ranges
    response = await desk.client.post(url, headers=h, json={"ranges": [[1, 2], [3, 5]]})
    assert response.status_code == 200, await response.get_data(as_text=True)
    parts = (await response.get_json())["items"]
    assert [p["fileName"] for p in parts] == ["batch (pages 1-2).pdf", "batch (pages 3-5).pdf"]
    assert [p["pages"] for p in parts] == [2, 3]
    assert [_pages(await _content(desk, p["id"])) for p in parts] == [2, 3]
    original = await IntakeItem.get(id=batch_id)
    assert original.status == Status.DELETED
    assert original.deleted_reason == f"Split into items {parts[0]['id']}, {parts[1]['id']}"
    [entry] = await audit_entries("intake_split")
    assert f"item={batch_id}" in entry.details and "pages=1-2,3-5" in entry.details
    assert entry.user_id == desk.clerk.user.id
    inbox = await desk.inbox(desk.clerk)
    assert sorted(i["id"] for i in inbox["items"]) == sorted(p["id"] for p in parts)
    again = await desk.client.post(url, headers=h, json={"ranges": [[1, 1]]})
    assert (await error_message(again, 409)).startswith("Already deleted by ")


async def test_a_split_refuses_ranges_that_copy_pages(desk: Desk) -> None:
    """Ranges that overlap, or hold more pages in all than the document has, would write
    its pages again and again (each part a new PDF in var/jobs/ and in storage): a 422 that
    names the problem, and nothing made."""
    [result] = await desk.batch(desk.clerk, [("batch.pdf", pdf(5))])
    batch_id = result["item"]["id"]
    url = f"/api/intake/items/{batch_id}/split"
    h = desk.clerk.headers
    one_part = "each page can go into one part only."
    refused = {
        "These ranges hold 250 pages in all, but this document has 5: " + one_part: [[1, 5]] * 50,
        "These ranges hold 6 pages in all, but this document has 5: " + one_part: [[1, 3], [3, 5]],
        "The ranges 1-2 and 2 overlap: " + one_part: [[2, 2], [4, 5], [1, 2]],
    }
    for message, ranges in refused.items():
        response = await desk.client.post(url, headers=h, json={"ranges": ranges})
        assert await error_message(response, 422) == message
    # Its pages not counted yet (a PDF's count failed at intake): refused before any work.
    await IntakeItem.filter(id=batch_id).update(page_count=None)
    response = await desk.client.post(url, headers=h, json={"ranges": [[1, 5]] * 50})
    assert await error_message(response, 422) == "The ranges 1-5 and 1-5 overlap: " + one_part
    # A page 0 too (the count, in a worker on a private copy, is not needed to refuse it).
    response = await desk.client.post(url, headers=h, json={"ranges": [[0, 0]]})
    assert await error_message(response, 400) == "There is no page 0: pages are numbered from 1."
    assert await IntakeItem.all().count() == 1
    assert (await IntakeItem.get(id=batch_id)).status == Status.NEW
    assert await audit_entries("intake_split") == []


async def test_turning_pages_sets_their_rotation_and_keeps_the_item(desk: Desk) -> None:
    [result, picture] = await desk.batch(desk.clerk, [("fax.pdf", pdf(3)), ("photo.png", png())])
    item_id = result["item"]["id"]
    url = f"/api/intake/items/{item_id}/rotate"
    h = desk.clerk.headers
    bad = await desk.client.post(url, headers=h, json={"degrees": 45})
    assert bad.status_code == 400
    missing = await desk.client.post(url, headers=h, json={"degrees": 90, "pages": [4]})
    assert "no page 4" in await error_message(missing, 400)
    image = await desk.client.post(
        f"/api/intake/items/{picture['item']['id']}/rotate", headers=h, json={"degrees": 90}
    )
    assert await error_message(image, 400) == "Only a PDF's pages can be split or turned."

    turned = await desk.client.post(url, headers=h, json={"degrees": 90, "pages": [2]})
    assert turned.status_code == 200, await turned.get_data(as_text=True)
    assert _rotations(await _content(desk, item_id)) == [0, 90, 0]
    again = await desk.client.post(url, headers=h, json={"degrees": 270})
    assert again.status_code == 200
    assert _rotations(await _content(desk, item_id)) == [270, 0, 270]
    entries = await audit_entries("intake_rotated")
    assert [e.details for e in entries] == [
        f"item={item_id} pages=2 degrees=90",
        f"item={item_id} pages=all degrees=270",
    ]
    row = await IntakeItem.get(id=item_id)
    assert row.status == Status.NEW and row.size == len(await _content(desk, item_id))
    # Only the turned bytes are kept: the earlier ones were removed after each commit.
    kept = [info.name async for info in desk.storage.walk() if info.name.startswith(".bff-intake/")]
    assert f".bff-intake/{row.object_id}" in kept
    assert len([k for k in kept if k.count("/") == 1]) == 2  # this item and the photo
    # With the turned bytes' thumbnail, drawn by the turn (bff/intake/thumbnails.py).
    assert f".bff-intake/.bff-previews/{row.object_id}.webp" in kept
