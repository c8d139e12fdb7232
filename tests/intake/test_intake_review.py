"""The intake's review faults, replayed through the real app, database, storage and clamd:
a filed document is read in the patient's folder only (its intake content refused, its bytes
and the suggestion's patient text gone, every read of an item audited in its folder); a
document deleted by mistake comes in again; a reason or name with a control character is a
400, not a 503 on PostgreSQL."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

from bff.audit.models import AuditLog
from bff.intake import access, housekeeping, repository, service
from bff.intake.models import IntakeItem, Status
from storage.base import ObjectKey
from tests.helpers import audit_entries, error_message
from tests.intake.desk import (  # noqa: F401 - fixtures
    Desk,
    clamd_fixture,
    desk_fixture,
    pdf,
    png,
)

EXCERPT = "Jane Example, record 12345678"


async def _intake_objects(desk: Desk) -> list[str]:
    assert desk.storage is not None
    area = ObjectKey.reserved(service.INTAKE_AREA)
    return [info.name async for info in desk.storage.walk(area)]


async def test_a_filed_document_is_read_in_the_patients_folder_only(desk: Desk) -> None:
    data = pdf(1)
    [result] = await desk.batch(desk.clerk, [("letter.pdf", data)])
    item_id = result["item"]["id"]
    await desk.routed(item_id)  # its thumbnail drawn ahead: removed with its bytes, below
    suggestion = {
        "folderId": desk.folder.id,
        "container": desk.container.name,
        "folder": desk.folder.name,
        "evidence": [{"kind": "recordNumber", "start": 13, "end": 29, "text": EXCERPT}],
    }
    assert await repository.set_suggestion(None, item_id, suggestion)
    h = desk.clerk.headers
    detail = await desk.client.get(f"/api/intake/items/{item_id}", headers=h)
    assert detail.status_code == 200
    content = await desk.client.get(f"/api/intake/items/{item_id}/content", headers=h)
    assert await content.get_data() == data
    # Both reads audited in the suggested folder: the patient's access report shows them.
    views = await audit_entries("intake_view")
    assert [(e.container_name, e.folder_name, e.user_id) for e in views] == [
        (desk.container.name, desk.folder.name, desk.clerk.user.id)
    ] * 2
    assert "detail" in views[0].details and "content" in views[1].details

    filed = await desk.file(desk.admin, item_id, folder=desk.other.name)
    assert filed.status_code == 200, await filed.get_data(as_text=True)
    # Its content is the folder's now: refused here, pointing there; its bytes are gone.
    again = await desk.client.get(f"/api/intake/items/{item_id}/content", headers=h)
    assert await error_message(again, 410) == access.FILED_ELSEWHERE
    assert await _intake_objects(desk) == []
    row = await IntakeItem.get(id=item_id)
    assert row.status == Status.FILED
    assert row.suggestion["evidence"] == [
        {"kind": "recordNumber", "start": 13, "end": 29, "text": ""}
    ]
    assert EXCERPT not in str(row.suggestion)
    # Its detail read after filing is audited in the folder it was filed to.
    assert (await desk.client.get(f"/api/intake/items/{item_id}", headers=h)).status_code == 200
    last = await AuditLog.filter(operation="intake_view").order_by("-id").first()
    assert last is not None and (last.container_name, last.folder_name) == (
        desk.container.name,
        desk.other.name,
    )


async def test_housekeeping_removes_a_filed_items_bytes_left_behind(desk: Desk) -> None:
    [result] = await desk.batch(desk.clerk, [("lab.png", png())])
    item_id = result["item"]["id"]
    assert (await desk.file(desk.clerk, item_id)).status_code == 200
    # As if the removal right after the filing had failed: the bytes are still there.
    assert desk.storage is not None
    left = service.item_key("left-behind")
    await desk.storage.write_object(left, _once(b"bytes"))
    await IntakeItem.filter(id=item_id).update(object_id="left-behind")
    assert await housekeeping.tidy(desk.storage, desk.settings) == (0, 0)  # within the grace
    earlier = datetime.now(UTC) - access.FILED_GRACE - timedelta(seconds=1)
    await IntakeItem.filter(id=item_id).update(filed_at=earlier)
    assert await housekeeping.tidy(desk.storage, desk.settings) == (0, 1)
    assert left.path not in await _intake_objects(desk)
    assert (await IntakeItem.get(id=item_id)).object_id.startswith("gone-")


async def _once(data: bytes):  # type: ignore[no-untyped-def]
    yield data


async def test_a_document_deleted_by_mistake_comes_in_again(desk: Desk) -> None:
    data = png()
    [first] = await desk.batch(desk.clerk, [("result.png", data)])
    old_id = first["item"]["id"]
    response = await desk.delete(desk.clerk, old_id, {"reason": "wrong patient (mistake)"})
    assert response.status_code == 200
    [again] = await desk.batch(desk.clerk, [("result.png", data)])  # the lab re-sends it
    assert again["duplicate"] is False and again["item"]["id"] != old_id
    assert [i["id"] for i in (await desk.inbox(desk.clerk))["items"]] == [again["item"]["id"]]
    # While it waits in the inbox, the same bytes are still the same item, even at once.
    both = await asyncio.gather(
        desk.batch(desk.clerk, [("copy-a.png", data)]),
        desk.batch(desk.admin, [("copy-b.png", data)]),
    )
    assert {r[0]["item"]["id"] for r in both} == {again["item"]["id"]}
    assert await IntakeItem.filter(status=Status.NEW).count() == 1
    assert len(await audit_entries("intake_received")) == 2


async def test_a_control_character_in_a_reason_or_name_is_refused(desk: Desk) -> None:
    [result] = await desk.batch(desk.clerk, [("junk.png", png())])
    item_id = result["item"]["id"]
    for reason in ("a\u0000b", "two\nlines", "zero\u200bwidth", "x" * 501):
        response = await desk.delete(desk.clerk, item_id, {"reason": reason})
        message = await error_message(response, 400)
        assert message.startswith("Invalid request - reason"), message
    response = await desk.delete(desk.clerk, item_id, {"reason": "a\u0000b"})
    assert "control or invisible characters" in await error_message(response, 400)
    response = await desk.file(desk.clerk, item_id, name="scan\u0000.png")
    assert "control characters" in await error_message(response, 400)
    assert (await IntakeItem.get(id=item_id)).status == Status.NEW
    assert await audit_entries("intake_deleted") == []
