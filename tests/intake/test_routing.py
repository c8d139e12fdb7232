"""The intake's routing through the real app (issue 51): scans made as a scanner makes them
(printed sheets and letters rasterised, turned, with noise: sheet_scans.py), uploaded to the
inbox, routed in the background by the app's router with its real worker pool (zxing-cpp,
tesseract): a cover sheet files its document to its folder without the sheet; a forged or
altered sheet routes nothing; separators split a batch; a letter with a record number and a
date of birth is suggested with its evidence, one with a name alone is not; a claim left by a
dead process is taken over once it runs out; a person filing while the routing files: one wins."""

from __future__ import annotations

import asyncio
import secrets
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pikepdf
from PIL import ImageDraw

from bff.files.models import StoredFile
from bff.intake import sheets
from bff.intake.models import IntakeItem, Source, Status
from bff.intake.routing import FOLDER_GONE, GAVE_UP, MAX_ATTEMPTS
from bff.intake.service import INTAKE_ACTOR, Arrival, take_in
from bff.intake.splitting import DAMAGED
from bff.services import app_services
from tests.helpers import audit_entries
from tests.intake.desk import (  # noqa: F401 - fixtures
    Desk,
    clamd_fixture,
    desk_fixture,
)
from tests.intake.sheet_scans import SCAN_DPI, letter_pdf, page_picture, scan_pdf

ROUTED_SECONDS = 90.0


def _cover(
    desk: Desk, folder_id: int, *, key: bytes | None = None, label: bool = False
) -> tuple[bytes, str]:
    """A cover sheet's first side for folder_id, signed with key (default: the app's), and
    its sheet id."""
    sheet_id = sheets.new_sheet_id()
    code = sheets.sign(
        folder_id, sheet_id, key or desk.settings.intake_sheet_mac_key(), label=label
    )
    return sheets.cover_sheet_pdf("Ann Smith", "03/03/1961", "0012345", "Ward 3", code), sheet_id


def _first_page(pdf: bytes) -> bytes:
    import io

    with pikepdf.open(io.BytesIO(pdf)) as source:
        out = pikepdf.new()
        out.pages.append(source.pages[0])
        buffer = io.BytesIO()
        out.save(buffer)
        return buffer.getvalue()


def _scan(tmp_path: Path, pdfs: list[bytes]) -> bytes:
    """pdfs' first pages scanned as one image-only PDF."""
    pictures = [page_picture(pdf, (0.8, -1.2, 1.5, -0.6)[i % 4], i) for i, pdf in enumerate(pdfs)]
    name = f"scan-{secrets.token_hex(4)}.pdf"
    return scan_pdf(tmp_path / name, pictures).read_bytes()


def _letter(title: str) -> bytes:
    return letter_pdf(f"{title} {secrets.token_hex(3)}")


async def _routed(desk: Desk, item_id: int, seconds: float = ROUTED_SECONDS) -> dict[str, Any]:
    """The item once its routing is done (or it was filed, deleted)."""
    deadline = time.monotonic() + seconds
    while True:
        response = await desk.client.get(f"/api/intake/items/{item_id}", headers=desk.clerk.headers)
        body: dict[str, Any] = await response.get_json()
        if body["routing"] == "done" or time.monotonic() > deadline:
            return body
        await asyncio.sleep(0.2)


async def _pages(desk: Desk, item: IntakeItem) -> int:
    """An item's pages: a filed one's in its folder (the intake keeps no copy once filed)."""
    from bff.intake.service import item_key

    data = bytearray()
    item = await IntakeItem.get(id=item.id)
    if item.status == Status.FILED:
        stored = await desk.storage.open(item.filed_container, item.filed_folder, item.filed_name)
        data += await stored.read_all()
    else:
        async with await desk.storage.open_object(item_key(item.object_id)) as chunks:
            async for chunk in chunks:
                data += chunk
    import io

    with pikepdf.open(io.BytesIO(bytes(data))) as pdf:
        return len(pdf.pages)


async def test_a_cover_sheet_files_its_pages_to_its_folder_without_the_sheet(
    desk: Desk, tmp_path: Path
) -> None:
    cover, sheet_id = _cover(desk, desk.folder.id)
    scan = _scan(tmp_path, [_first_page(cover), _letter("Page one"), _letter("Page two")])
    [result] = await desk.batch(desk.clerk, [("scan.pdf", scan)])
    original = await _routed(desk, result["item"]["id"])
    assert original["status"] == "deleted", original
    assert original["deleted"]["reason"].startswith("Split into items ")

    [part] = await IntakeItem.filter(source=Source.UPLOAD).exclude(id=original["id"])
    shown = await _routed(desk, part.id)
    assert shown["status"] == "filed", shown
    assert shown["filed"]["folder"] == desk.folder.name
    assert shown["filed"]["by"] == "intake"
    assert await _pages(desk, part) == 2  # the sheet removed
    listing = await desk.listing(desk.nurse)
    [filed] = [blob for blob in listing["blobs"] if blob["name"] == shown["filed"]["name"]]
    # Its row says the sheet filed it (an upload to the intake, as the scan came).
    assert filed["source"] == {"kind": "upload", "sender": None, "coverSheet": True}
    [entry] = await audit_entries("intake_routed")
    assert (entry.container_name, entry.folder_name) == (desk.container.name, desk.folder.name)
    assert f"sheet={sheet_id}" in entry.details
    assert await audit_entries("intake_filed") == []  # never as a person's filing


async def test_a_torn_sheet_mid_batch_lets_no_page_join_the_routed_document(
    desk: Desk, tmp_path: Path
) -> None:
    cover, _ = _cover(desk, desk.folder.id)
    torn = page_picture(_first_page(_cover(desk, desk.other.id)[0]), 1.0, 7)
    per_mm = SCAN_DPI / 25.4
    for top in (20, 195):  # both codes of the next patient's sheet torn past reading
        left = 210 - 20 - sheets.QR_MM + 12
        ImageDraw.Draw(torn).rectangle(
            [left * per_mm, (top + 4) * per_mm, (left + 14) * per_mm, (top + 41) * per_mm],
            fill=255,
        )
    pictures = [page_picture(_first_page(cover), 0.5, 1), page_picture(_letter("One"), 1.0, 2)]
    pictures += [torn, page_picture(_letter("Next patient"), -1.0, 3)]
    scan = scan_pdf(tmp_path / "torn.pdf", pictures).read_bytes()
    [result] = await desk.batch(desk.clerk, [("torn.pdf", scan)])
    assert (await _routed(desk, result["item"]["id"]))["status"] == "deleted"
    routed, waiting = await IntakeItem.filter(status__in=[Status.NEW, Status.FILED]).order_by("id")
    shown = await _routed(desk, routed.id)
    assert (shown["status"], shown["filed"]["folder"]) == ("filed", desk.folder.name)
    assert await _pages(desk, routed) == 1  # the letter alone
    held = await _routed(desk, waiting.id)
    assert held["status"] == "new"
    assert held["problems"] == [DAMAGED.format(page=3)]
    assert await _pages(desk, waiting) == 2  # the torn sheet kept, for a person to see
    assert await StoredFile.all().count() == 1


async def test_a_sheet_of_a_folder_no_longer_there_files_nothing(
    desk: Desk, tmp_path: Path
) -> None:
    gone = type(desk.folder)
    cover, _ = _cover(desk, 2**31 - 2)  # verified, but no folder has this id (deleted)
    scan = _scan(tmp_path, [_first_page(cover), _letter("Report")])
    [result] = await desk.batch(desk.clerk, [("scan.pdf", scan)])
    await _routed(desk, result["item"]["id"])
    [part] = await IntakeItem.filter(status=Status.NEW)
    shown = await _routed(desk, part.id)
    assert shown["status"] == "new", shown
    assert shown["problems"] == [FOLDER_GONE]
    assert await StoredFile.all().count() == 0
    assert await gone.all().count() == 2


async def test_a_forged_or_altered_sheet_routes_nothing_and_says_so(
    desk: Desk, tmp_path: Path
) -> None:
    forged, _ = _cover(desk, desk.folder.id, key=secrets.token_bytes(32))
    good = sheets.sign(desk.other.id, sheets.new_sheet_id(), desk.settings.intake_sheet_mac_key())
    parts = good.split(":")
    parts[2] = str(desk.folder.id)  # the folder changed, the MAC kept
    altered = sheets.cover_sheet_pdf("Ann Smith", "03/03/1961", "1", "Ward 3", ":".join(parts))
    for sheet in (forged, altered):
        scan = _scan(tmp_path, [_first_page(sheet), _letter("Referral")])
        [result] = await desk.batch(desk.clerk, [("scan.pdf", scan)])
        shown = await _routed(desk, result["item"]["id"])
        assert shown["status"] == "new", shown
        assert shown["routing"] == "done"
        assert any("did not verify" in problem for problem in shown["problems"]), shown
        assert shown["suggestion"] is None
    assert await StoredFile.all().count() == 0
    assert await audit_entries("intake_routed") == []


async def test_separators_split_a_batch_into_its_documents(desk: Desk, tmp_path: Path) -> None:
    separator = _first_page(sheets.separator_sheet_pdf())
    scan = _scan(
        tmp_path,
        [_letter("First"), separator, _letter("Second a"), _letter("Second b"), separator],
    )
    [result] = await desk.batch(desk.clerk, [("batch.pdf", scan)])
    original = await _routed(desk, result["item"]["id"])
    assert original["status"] == "deleted", original
    parts = await IntakeItem.filter(status=Status.NEW).order_by("id")
    assert [part.file_name for part in parts] == ["batch (page 1).pdf", "batch (pages 3-4).pdf"]
    assert [await _pages(desk, part) for part in parts] == [1, 2]
    for part in parts:
        shown = await _routed(desk, part.id)
        assert (shown["status"], shown["problems"]) == ("new", [])
    [split] = await audit_entries("intake_split")
    assert "pages=1-1,3-4" in split.details
    assert await StoredFile.all().count() == 0  # nothing filed without a cover sheet


async def test_a_letter_with_record_number_and_birth_date_is_suggested_a_name_alone_not(
    desk: Desk, tmp_path: Path
) -> None:
    await desk.record_ann_smith()
    scanned = _scan(tmp_path, [letter_pdf("Re: Ann Smith, MRN 0012345, DOB 03/03/1961")])
    typed = letter_pdf(f"Re: Ann Smith, seen in clinic {secrets.token_hex(3)}")
    results = await desk.batch(desk.clerk, [("letter.pdf", scanned), ("name.pdf", typed)])
    suggested = await _routed(desk, results[0]["item"]["id"])
    assert suggested["status"] == "new" and suggested["problems"] == []
    suggestion = suggested["suggestion"]
    assert suggestion is not None, suggested
    assert (suggestion["folderId"], suggestion["folder"]) == (desk.other.id, desk.other.name)
    kinds = {piece["kind"] for piece in suggestion["evidence"]}
    assert {"record", "birth_date"} <= kinds
    for piece in suggestion["evidence"]:  # each piece shown in its words
        around = next(
            e
            for e in suggestion["excerpts"]
            if e["start"] <= piece["start"] and piece["end"] <= e["start"] + len(e["text"])
        )
        start = piece["start"] - around["start"]
        assert around["text"][start : start + len(piece["text"])] == piece["text"]
    [entry] = await audit_entries("intake_suggested")
    assert (entry.container_name, entry.folder_name) == (desk.container.name, desk.other.name)

    alone = await _routed(desk, results[1]["item"]["id"])
    assert (alone["status"], alone["suggestion"], alone["routing"]) == ("new", None, "done")
    assert await StoredFile.all().count() == 0  # a suggestion is never filed


async def _taken_claimed(
    desk: Desk, data: bytes, until: datetime, name: str = "scan.pdf"
) -> IntakeItem:
    """An item received while a process (now dead) held its routing's claim until a time."""

    async def chunks() -> Any:
        yield data

    values = {"routing": "claimed", "routing_holder": "dead-host:1:0", "routing_until": until}
    async with desk.app.app_context():
        item, _ = await take_in(
            chunks(), Arrival(Source.SCANNER, name), desk.storage, INTAKE_ACTOR, values=values
        )
    return item


async def _claim_ran_out(item: IntakeItem) -> None:
    await IntakeItem.filter(id=item.id).update(
        routing_until=datetime.now(UTC) - timedelta(seconds=1)
    )


async def test_a_claim_left_by_a_dead_process_is_routed_once_it_runs_out(
    desk: Desk, tmp_path: Path
) -> None:
    label, sheet_id = _cover(desk, desk.folder.id, label=True)
    scan = _scan(tmp_path, [_first_page(label), _letter("Result")])
    item = await _taken_claimed(desk, scan, datetime.now(UTC) + timedelta(minutes=5))
    router = app_services(desk.app).intake_router
    assert router is not None
    assert await router.route_due() == 0  # its claim still stands
    assert not await router.route(item.id)  # nor can it be claimed by another
    assert (await IntakeItem.get(id=item.id)).status == Status.NEW
    await _claim_ran_out(item)
    router.wake()
    shown = await _routed(desk, item.id)
    assert shown["status"] == "filed", shown  # a label's page is kept: filed whole
    assert await _pages(desk, item) == 2
    [entry] = await audit_entries("intake_routed")
    assert f"sheet={sheet_id}" in entry.details
    # One whose every claim ran out (each process routing it died) is left to a person.
    again = await _taken_claimed(desk, scan[:-1] + b" ", datetime.now(UTC) + timedelta(minutes=5))
    await IntakeItem.filter(id=again.id).update(routing_attempts=MAX_ATTEMPTS)
    await _claim_ran_out(again)
    assert await router.route(again.id)
    shown = await _routed(desk, again.id)
    assert (shown["status"], shown["problems"]) == ("new", [GAVE_UP])


async def test_a_person_filing_while_the_routing_files_one_wins(desk: Desk, tmp_path: Path) -> None:
    router = app_services(desk.app).intake_router
    assert router is not None
    later = datetime.now(UTC) + timedelta(minutes=5)
    label, _ = _cover(desk, desk.other.id, label=True)
    # The person first: the routing then files nothing.
    first = await _taken_claimed(
        desk, _scan(tmp_path, [_first_page(label), _letter("A")]), later, "a.pdf"
    )
    assert (await desk.file(desk.clerk, first.id, name="a.pdf")).status_code == 200
    await _claim_ran_out(first)
    assert not await router.route(first.id)  # filed: nothing left to route
    assert (await _routed(desk, first.id))["filed"]["by"] == desk.clerk.user.name
    assert await audit_entries("intake_routed") == []
    # The routing first: the person is told who filed it.
    second = await _taken_claimed(
        desk, _scan(tmp_path, [_first_page(label), _letter("B")]), later, "b.pdf"
    )
    await _claim_ran_out(second)
    assert await router.route(second.id)
    late = await desk.file(desk.clerk, second.id, name="b.pdf")
    assert late.status_code == 409
    assert (await late.get_json())["message"].startswith("Already filed by intake at ")
    # At once: exactly one files it.
    third = await _taken_claimed(
        desk, _scan(tmp_path, [_first_page(label), _letter("C")]), later, "c.pdf"
    )
    await _claim_ran_out(third)
    _, response = await asyncio.gather(router.route(third.id), desk.file(desk.clerk, third.id))
    shown = await _routed(desk, third.id)
    assert shown["status"] == "filed"
    assert await StoredFile.filter(name="c.pdf").count() == 1  # in one folder only
    if response.status_code == 200:
        assert shown["filed"]["by"] == desk.clerk.user.name
    else:
        assert response.status_code == 409
        assert shown["filed"]["by"] == "intake"
    assert await StoredFile.all().count() == 3  # one file per item, never two
