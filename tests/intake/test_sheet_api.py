"""The intake's sheets as downloads through the real app (issue 51): a folder's cover sheet is a
PDF whose barcode, read from a scanned picture of it, verifies to that folder under the app's
sheet key, with the patient's details printed ("not recorded" where the folder has none); every
print a new sheet id, audited in the folder with it; who may print (the folder's care team who
may upload, the intake permission's holders, admins; unassigned 404, others 403); the separator
sheet for intake holders; a scan routed by a printed sheet names the sheet id its print was
audited with."""

from __future__ import annotations

import asyncio
import secrets
import time
from datetime import date
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pypdfium2 as pdfium

from bff.audit.models import AuditLog
from bff.containers.models import Folder
from bff.intake import sheets
from bff.intake.barcodes import read_codes
from bff.intake.models import IntakeItem, Status
from tests.factories import StaffMember
from tests.helpers import audit_entries, error_message
from tests.intake.desk import (  # noqa: F401 - fixtures
    Desk,
    clamd_fixture,
    desk_fixture,
)
from tests.intake.sheet_scans import letter_pdf, page_picture, scan_pdf

FORBIDDEN = "You don't have permission to do this."


def _url(folder: Folder, container: str) -> str:
    return f"/api/intake/cover-sheet/{quote(container, safe='')}/{quote(folder.name, safe='')}"


async def _print(desk: Desk, who: StaffMember, folder: Folder | None = None) -> Any:
    return await desk.client.get(
        _url(folder or desk.folder, desk.container.name), headers=who.headers
    )


async def _pdf(response: Any) -> bytes:
    assert response.status_code == 200, await response.get_data(as_text=True)
    assert response.headers["Content-Type"] == "application/pdf"
    assert response.headers["Content-Disposition"].startswith("attachment;")
    assert "cover-sheet.pdf" in response.headers["Content-Disposition"] or (
        "separator-sheet.pdf" in response.headers["Content-Disposition"]
    )
    assert response.headers["Cache-Control"] == "no-store"
    data: bytes = await response.get_data()
    assert data.startswith(b"%PDF-")
    return data


def _text(data: bytes) -> list[str]:
    document = pdfium.PdfDocument(data)
    try:
        return [page.get_textpage().get_text_range() for page in document]
    finally:
        document.close()


def _scanned_codes(data: bytes, path: Path) -> list[str]:
    """The codes a scanner's copy of the sheet's first side gives (grey, turned, noisy)."""
    [page] = read_codes(str(scan_pdf(path, [page_picture(data, 0.8, 7)])))
    return list(page.texts)


async def test_a_cover_sheet_routes_to_its_folder_and_each_print_is_a_new_audited_sheet(
    desk: Desk, tmp_path: Path
) -> None:
    folder = desk.folder
    folder.patient_name = "SMITH Ann"
    folder.patient_birth_date = date(1961, 3, 3)
    folder.patient_record_number = "0012345"
    await folder.save()
    key = desk.settings.intake_sheet_mac_key()

    response = await _print(desk, desk.clerk)
    first = await _pdf(response)
    # The patient is on the paper only: not in the download's name, nor the PDF's metadata.
    assert response.headers["Content-Disposition"] == (
        "attachment; filename=\"cover-sheet.pdf\"; filename*=UTF-8''cover-sheet.pdf"
    )
    metadata = pdfium.PdfDocument(first)
    try:
        assert not any(
            "SMITH" in value or "0012345" in value
            for value in metadata.get_metadata_dict().values()
        )
    finally:
        metadata.close()
    [payload] = _scanned_codes(first, tmp_path / "first.pdf")
    code = sheets.verify(payload, key)
    assert code is not None and code.folder_id == folder.id and not code.label
    # Both sides carry it, and the patient a person checks before scanning.
    pages = read_codes_of(first, tmp_path / "sheet.pdf")
    assert pages == [[payload], [payload]]
    for side in _text(first):
        for shown in ("SMITH Ann", "3 Mar 1961", "0012345", f"{desk.container.name} / patient-1"):
            assert shown in side

    second = await _pdf(await _print(desk, desk.clerk))
    [again] = _scanned_codes(second, tmp_path / "second.pdf")
    other = sheets.verify(again, key)
    assert other is not None and other.folder_id == folder.id
    assert other.sheet_id != code.sheet_id

    printed = await audit_entries("intake_sheet_printed")
    assert [e.details for e in printed] == [f"sheet={code.sheet_id}", f"sheet={other.sheet_id}"]
    for entry in printed:
        assert entry.user_id == desk.clerk.user.id
        assert (entry.container_name, entry.folder_name) == (desk.container.name, folder.name)
    # A sheet made under another key routes nothing here.
    assert sheets.verify(payload, b"another key" * 3) is None


def read_codes_of(data: bytes, path: Path) -> list[list[str]]:
    """Each page's codes read from the PDF as printed."""
    path.write_bytes(data)
    return [list(page.texts) for page in read_codes(str(path))]


async def test_a_folder_without_patient_details_gets_a_sheet_saying_not_recorded(
    desk: Desk, tmp_path: Path
) -> None:
    data = await _pdf(await _print(desk, desk.admin, desk.other))
    [payload] = _scanned_codes(data, tmp_path / "scan.pdf")
    code = sheets.verify(payload, desk.settings.intake_sheet_mac_key())
    assert code is not None and code.folder_id == desk.other.id
    for side in _text(data):
        assert side.count("not recorded") == 3


async def test_who_may_print_a_folders_cover_sheet(desk: Desk) -> None:
    # The folder's nurse may upload there: she may print its sheet without the intake.
    await _pdf(await _print(desk, desk.nurse))
    # Its assistant may not upload: refused, audited, and no sheet recorded.
    assert await error_message(await _print(desk, desk.assistant), 403) == FORBIDDEN
    [refusal] = await audit_entries("access_denied")
    assert refusal.user_id == desk.assistant.user.id
    assert refusal.folder_name == desk.folder.name
    assert refusal.details == "403 GET /api/intake/cover-sheet/<container>/<folder>"
    # Given the intake permission by the admin, she may.
    granted = await desk.grant(desk.assistant, True)
    assert granted.status_code == 200, await granted.get_data(as_text=True)
    await _pdf(await _print(desk, desk.assistant))
    # A folder not assigned to the caller is not there for them, intake or not.
    for who in (desk.clerk, desk.assistant, desk.nurse):
        assert await error_message(await _print(desk, who, desk.other), 404) == "Folder not found"
    gone = await desk.client.get(
        f"/api/intake/cover-sheet/{desk.container.name}/patient-404", headers=desk.admin.headers
    )
    assert await error_message(gone, 404) == "Folder not found"
    assert (await desk.client.get(_url(desk.folder, desk.container.name))).status_code == 401
    printed = await audit_entries("intake_sheet_printed")
    assert [e.user_id for e in printed] == [desk.nurse.user.id, desk.assistant.user.id]


async def test_the_separator_sheet_is_for_intake_holders(desk: Desk, tmp_path: Path) -> None:
    response = await desk.client.get("/api/intake/separator-sheet", headers=desk.clerk.headers)
    data = await _pdf(response)
    assert "separator-sheet.pdf" in response.headers["Content-Disposition"]
    assert _scanned_codes(data, tmp_path / "scan.pdf") == [sheets.SEPARATOR]
    assert read_codes_of(data, tmp_path / "sheet.pdf") == [[sheets.SEPARATOR]] * 2
    for who in (desk.nurse, desk.assistant):
        refused = await desk.client.get("/api/intake/separator-sheet", headers=who.headers)
        assert await error_message(refused, 403) == FORBIDDEN


async def test_a_routed_scan_traces_back_to_who_printed_its_sheet(
    desk: Desk, tmp_path: Path
) -> None:
    sheet = await _pdf(await _print(desk, desk.nurse))
    letter = letter_pdf(f"Discharge summary {secrets.token_hex(3)}")
    scan = scan_pdf(
        tmp_path / "scan.pdf", [page_picture(sheet, -0.9, 3), page_picture(letter, 0.6, 4)]
    )
    [result] = await desk.batch(desk.clerk, [("scan.pdf", scan.read_bytes())])
    original = result["item"]["id"]
    deadline = time.monotonic() + 60
    routed: list[AuditLog] = []
    while not routed and time.monotonic() < deadline:
        await asyncio.sleep(0.2)
        routed = await audit_entries("intake_routed")
    [entry] = routed
    [printed] = await audit_entries("intake_sheet_printed")
    assert printed.user_id == desk.nurse.user.id
    sheet_id = printed.details.removeprefix("sheet=")
    assert entry.details.endswith(f"sheet={sheet_id}")
    assert (entry.container_name, entry.folder_name) == (desk.container.name, desk.folder.name)
    [part] = await IntakeItem.filter(status=Status.FILED).exclude(id=original)
    assert part.filed_folder_id == desk.folder.id
