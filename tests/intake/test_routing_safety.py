"""The routing's safety (the hostile review of issue 51): a split that loses its race to a
person leaves no part to be filed or shown (#1); a cover sheet files by itself only what the
scanner brought, or an uploader may file, and from the mailbox only suggests (#2); the
untrusted text is searched in the worker pool, not in the server's event loop (#3); a stop
gives back every claim it held, and an item whose bytes are gone is left to a person (#11)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from bff.files.models import StoredFile
from bff.intake import repository, reshaping, routing
from bff.intake.models import IntakeItem, Source, Status
from bff.intake.repository import GONE
from bff.intake.routing_work import BYTES_GONE
from bff.intake.service import INTAKE_ACTOR, Arrival, item_key, take_in
from bff.intake.sheet_policy import FROM_MAIL, NOT_UPLOADERS
from bff.services import app_services
from tests.helpers import audit_entries
from tests.intake.desk import (  # noqa: F401 - fixtures
    Desk,
    clamd_fixture,
    desk_fixture,
)
from tests.intake.sheet_scans import letter_pdf
from tests.intake.test_intake_thumbnail import _stored
from tests.intake.test_routing import (
    _claim_ran_out,
    _cover,
    _first_page,
    _letter,
    _routed,
    _scan,
    _taken_claimed,
)


async def _taken(desk: Desk, data: bytes, source: Source, name: str = "scan.pdf") -> IntakeItem:
    """An item received from source (routed by the app's router in the background)."""

    async def chunks() -> Any:
        yield data

    async with desk.app.app_context():
        item, _ = await take_in(chunks(), Arrival(source, name), desk.storage, INTAKE_ACTOR)
    return item


def _router(desk: Desk) -> routing.Router:
    router = app_services(desk.app).intake_router
    assert router is not None
    return router


async def test_a_routing_split_that_loses_to_a_deletion_leaves_no_part_to_file(
    desk: Desk, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cover, _ = _cover(desk, desk.folder.id)
    scan = _scan(tmp_path, [_first_page(cover), _letter("Page one"), _letter("Page two")])
    item = await _taken_claimed(desk, scan, datetime.now(UTC) + timedelta(minutes=5))
    real_take_in = take_in
    deleted: list[int] = []

    async def take_in_meanwhile(*args: Any, **kwargs: Any) -> Any:
        if not deleted:  # the clerk deletes the scan while the split takes its parts in
            reason = {"reason": "wrong cover sheet, rescan"}
            deleted.append((await desk.delete(desk.clerk, item.id, reason)).status_code)
        return await real_take_in(*args, **kwargs)

    monkeypatch.setattr(reshaping, "take_in", take_in_meanwhile)
    router = _router(desk)
    await router.stop()  # routed here alone, not by its background task as well
    await _claim_ran_out(item)
    assert await router.route(item.id)
    assert deleted == [200]
    original = await IntakeItem.get(id=item.id)
    assert (original.status, original.deleted_reason) == (
        Status.DELETED,
        "wrong cover sheet, rescan",
    )
    parts = await IntakeItem.exclude(id=item.id)
    assert len(parts) == 1, original.problems
    part = parts[0]
    assert part.status == Status.DELETED, part.routing
    assert part.deleted_reason.startswith(f"the split of item {item.id} lost: Already deleted by")
    assert part.object_id.startswith(GONE)  # its bytes removed
    later = datetime.now(UTC) + timedelta(hours=1)
    assert await repository.routable_ids(later, 10) == []  # nothing left to route, ever
    assert await StoredFile.all().count() == 0
    assert await audit_entries("intake_routed") == []
    assert (await desk.inbox(desk.clerk, status="new"))["total"] == 0  # nothing to file


async def test_a_persons_split_that_loses_to_a_filing_leaves_nothing_in_the_inbox(
    desk: Desk, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.intake.desk import pdf

    item = await _taken(desk, pdf(3), Source.UPLOAD, "three.pdf")
    await _routed(desk, item.id)
    real_take_in = take_in
    filed: list[int] = []

    async def take_in_meanwhile(*args: Any, **kwargs: Any) -> Any:
        if not filed:
            filed.append((await desk.file(desk.clerk, item.id, name="three.pdf")).status_code)
        return await real_take_in(*args, **kwargs)

    monkeypatch.setattr(reshaping, "take_in", take_in_meanwhile)
    response = await desk.client.post(
        f"/api/intake/items/{item.id}/split",
        headers=desk.clerk.headers,
        json={"ranges": [[1, 1], [2, 3]]},
    )
    assert filed == [200]
    assert response.status_code == 409
    assert (await response.get_json())["message"].startswith("Already filed by ")
    inbox = await desk.inbox(desk.clerk, status="new")
    assert inbox["total"] == 0, inbox  # no part of the split that did not happen
    parts = await IntakeItem.exclude(id=item.id)
    assert len(parts) == 2
    assert all(part.status == Status.DELETED for part in parts)
    assert await StoredFile.all().count() == 1  # the person's filing alone


async def test_a_cover_sheet_files_by_itself_only_from_the_scanner_or_an_uploader_allowed(
    desk: Desk, tmp_path: Path
) -> None:
    label, _ = _cover(desk, desk.other.id, label=True)  # the clerk is not assigned `other`
    scanned = await _taken(
        desk, _scan(tmp_path, [_first_page(label), _letter("S")]), Source.SCANNER
    )
    assert (await _routed(desk, scanned.id))["status"] == "filed"

    [upload] = await desk.batch(
        desk.clerk, [("up.pdf", _scan(tmp_path, [_first_page(label), _letter("U")]))]
    )
    shown = await _routed(desk, upload["item"]["id"])
    assert (shown["status"], shown["problems"]) == ("new", [NOT_UPLOADERS]), shown
    assert shown["suggestion"]["folderId"] == desk.other.id

    own, own_id = _cover(desk, desk.folder.id, label=True)
    [mine] = await desk.batch(
        desk.clerk, [("own.pdf", _scan(tmp_path, [_first_page(own), _letter("O")]))]
    )
    assert (await _routed(desk, mine["item"]["id"]))["status"] == "filed"

    mailed = await _taken(desk, _scan(tmp_path, [_first_page(own), _letter("M")]), Source.MAILBOX)
    shown = await _routed(desk, mailed.id)
    assert (shown["status"], shown["problems"]) == ("new", [FROM_MAIL]), shown
    suggestion = shown["suggestion"]
    assert (suggestion["folderId"], suggestion["folder"]) == (desk.folder.id, desk.folder.name)
    assert suggestion["evidence"][0]["text"] == f"cover sheet {own_id}"
    assert await StoredFile.all().count() == 2  # the scanner's and the allowed uploader's
    assert len(await audit_entries("intake_routed")) == 2
    # The two left in the inbox have their thumbnails, drawn once their sheet only suggested;
    # the documents their sheets filed had none drawn (nor the scan they were cut from).
    for item_id in (upload["item"]["id"], mailed.id):
        row = await IntakeItem.get(id=item_id)
        assert row.status == Status.NEW
        assert await _stored(desk, row.object_id) is not None, item_id
    for row in await IntakeItem.exclude(status=Status.NEW):
        assert await _stored(desk, row.object_id) is None, (row.id, row.status)


async def _retaken(desk: Desk, item_id: int) -> dict[str, Any]:
    """Route an item again as after a crash between its suggestion and the end of its routing:
    the dead process's claim runs out and a live one takes it (its suggestion kept)."""
    await IntakeItem.filter(id=item_id).update(
        routing=repository.CLAIMED,
        routing_holder="dead-host:1:0",
        routing_until=datetime.now(UTC) - timedelta(seconds=1),
    )
    router = app_services(desk.app).intake_router
    assert router is not None
    router.wake()
    return await _routed(desk, item_id)


async def test_a_retaken_routing_keeps_its_suggestion_audited_once(
    desk: Desk, tmp_path: Path
) -> None:
    """A suggestion (by the text, or by a mailed cover sheet) is audited once: a routing taken
    again after its process died keeps the suggestion it had, and records none again."""
    await desk.record_ann_smith()
    letter = await _taken(
        desk, letter_pdf("Re: Ann Smith, MRN 0012345, DOB 03/03/1961"), Source.SCANNER
    )
    first = await _routed(desk, letter.id)
    assert first["suggestion"]["folderId"] == desk.other.id, first
    label, _ = _cover(desk, desk.folder.id, label=True)
    mailed = await _taken(desk, _scan(tmp_path, [_first_page(label), _letter("M")]), Source.MAILBOX)
    assert (await _routed(desk, mailed.id))["problems"] == [FROM_MAIL]
    assert len(await audit_entries("intake_suggested")) == 2

    again = await _retaken(desk, letter.id)
    assert (again["routing"], again["suggestion"]) == ("done", first["suggestion"])
    assert (await _retaken(desk, mailed.id))["problems"] == [FROM_MAIL]
    entries = await audit_entries("intake_suggested")
    assert sorted(e.details.split()[0] for e in entries) == sorted(
        [f"item={letter.id}", f"item={mailed.id}"]
    )
    assert await StoredFile.all().count() == 0


async def test_the_suggestion_searches_the_text_in_the_worker_pool(
    desk: Desk, monkeypatch: pytest.MonkeyPatch
) -> None:
    await desk.record_ann_smith()

    def in_the_server(*args: Any) -> Any:
        raise AssertionError("the untrusted text was searched in the server's event loop")

    from bff.intake import candidates

    monkeypatch.setattr(candidates, "record_keys", in_the_server)
    monkeypatch.setattr(routing, "suggest", in_the_server, raising=False)
    typed = letter_pdf("Re: Ann Smith, MRN 0012345, DOB 03/03/1961")
    [result] = await desk.batch(desk.clerk, [("letter.pdf", typed)])
    shown = await _routed(desk, result["item"]["id"])
    assert shown["suggestion"] is not None, shown
    assert shown["suggestion"]["folderId"] == desk.other.id


async def test_a_stop_gives_back_the_batch_parts_not_routed_yet(
    desk: Desk, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first, _ = _cover(desk, desk.folder.id)
    second, _ = _cover(desk, desk.other.id)
    pages = [_first_page(first), _letter("A"), _first_page(second), _letter("B")]
    filing = asyncio.Event()

    async def filing_forever(*args: Any, **kwargs: Any) -> Any:
        filing.set()
        await asyncio.Event().wait()

    monkeypatch.setattr(routing, "file_item", filing_forever)
    item = await _taken(desk, _scan(tmp_path, pages), Source.SCANNER)
    async with asyncio.timeout(90):
        await filing.wait()  # the first part being filed, the second waiting its turn
    await _router(desk).stop()
    parts = await IntakeItem.exclude(id=item.id).order_by("id")
    assert len(parts) == 2
    assert [part.routing for part in parts] == ["pending", "pending"]  # claimable at once


async def test_an_item_whose_bytes_are_gone_is_left_to_a_person(desk: Desk) -> None:
    from tests.intake.desk import pdf

    item = await _taken_claimed(desk, pdf(2), datetime.now(UTC) + timedelta(minutes=5))
    await desk.storage.delete_object(item_key(item.object_id))
    router = _router(desk)
    await router.stop()  # routed here alone, not by its background task as well
    await _claim_ran_out(item)
    assert await router.route(item.id)
    shown = await _routed(desk, item.id)
    assert (shown["status"], shown["routing"], shown["problems"]) == ("new", "done", [BYTES_GONE])
