"""Scans whose pages are not what the cover sheet's rules expect, read as the intake reads them
(bff/intake/barcodes.py) and planned (bff/intake/splitting.py): a one-sided sheet fed face down
(a blank page) must stop the routing before the next patient's pages; a sheet's code stuck on a
document's page (read once) must not lose that page."""

from __future__ import annotations

import secrets
from pathlib import Path

import segno
from fpdf import FPDF
from PIL import Image, ImageDraw

from bff.intake import sheets
from bff.intake.barcodes import read_codes
from bff.intake.splitting import BLANK, ONE_CODE, PlannedDocument, plan
from tests.intake.sheet_scans import (
    SCAN_DPI,
    blank_pdf,
    dusty,
    letter_pdf,
    lines_pdf,
    page_picture,
    scan_pdf,
    scan_tiff,
)

KEY = secrets.token_bytes(32)
FOLDER = 4242
NEXT = 7


def _cover(folder_id: int = FOLDER, payload: str | None = None) -> bytes:
    code = payload or sheets.sign(folder_id, sheets.new_sheet_id(), KEY)
    return sheets.cover_sheet_pdf("Ann Smith", "03/03/1961", "0012345", "Ward 3", code)


def _routes(documents: list[PlannedDocument]) -> list[tuple[tuple[int, ...], int | None]]:
    return [(d.pages, d.route.folder_id if d.route else None) for d in documents]


def test_blank_pages_are_told_from_sparse_ones(tmp_path: Path) -> None:
    """Blank: a blank page with the scanner's noise, with dust and a streak, with a letter's
    show-through from its back. Not blank: a page of three short lines, a sign-off."""
    show_through = page_picture(letter_pdf("Back"), 0.5, 4).transpose(
        Image.Transpose.FLIP_LEFT_RIGHT
    )
    pictures = [
        page_picture(blank_pdf(), 1.0, 0),
        dusty(page_picture(blank_pdf(), -1.5, 1), 1),
        Image.blend(page_picture(blank_pdf(), 0.5, 2), show_through, 0.25),
        page_picture(lines_pdf("Dear colleague,", "results attached.", "Dr Jones"), 1.0, 3),
        page_picture(lines_pdf("Kind regards,", "", "A. Jones"), -1.0, 5),
    ]
    expected = [True, True, True, False, False]
    for path in (
        scan_pdf(tmp_path / "pages.pdf", pictures),
        scan_tiff(tmp_path / "p.tiff", pictures),
    ):
        assert [page.blank for page in read_codes(str(path))] == expected


def test_a_cover_sheet_fed_face_down_stops_the_routing(tmp_path: Path) -> None:
    """The next patient's one-sided sheet fed face down scans blank: the letter after it is
    not filed to the patient before; it waits for a person, the problem said."""
    pictures = [page_picture(_cover(), 1.0, 0), page_picture(letter_pdf("For Ann"), -1.0, 1)]
    pictures += [dusty(page_picture(blank_pdf(), 0.8, 2), 2)]
    pictures += [page_picture(letter_pdf("For the next patient"), 1.5, 3)]
    codes = read_codes(str(scan_pdf(tmp_path / "face-down.pdf", pictures)))

    assert [page.blank for page in codes] == [False, False, True, False]
    documents = plan(codes, KEY)
    assert _routes(documents) == [((1,), FOLDER), ((2, 3), None)]
    assert documents[0].problems == ()
    assert documents[1].problems == (BLANK.format(page=3),)


def test_a_one_sided_sheet_scanned_duplex_goes_with_its_blank_back(tmp_path: Path) -> None:
    """Each sheet's blank back right after it is removed with it; the routing goes on."""
    pictures = [page_picture(_cover(), 1.0, 0), page_picture(blank_pdf(), -1.0, 1)]
    pictures += [page_picture(letter_pdf("One"), 0.5, 2), page_picture(letter_pdf("Two"), 0.5, 3)]
    pictures += [page_picture(_cover(NEXT), 1.0, 4), page_picture(blank_pdf(), -1.0, 5)]
    pictures += [page_picture(letter_pdf("Three"), 0.5, 6)]
    documents = plan(read_codes(str(scan_pdf(tmp_path / "duplex.pdf", pictures))), KEY)

    assert _routes(documents) == [((2, 3), FOLDER), ((6,), NEXT)]
    assert all(d.problems == () for d in documents)


def test_a_sheet_code_stuck_on_a_letter_keeps_the_page(tmp_path: Path) -> None:
    """A cover sheet's code cut out and stuck on a letter's first page (read once): the letter
    routes with that page, which is its own; a printed sheet (two codes) is still removed."""
    payload = sheets.sign(FOLDER, sheets.new_sheet_id(), KEY)
    segno.make(payload, error="h", micro=False).save(str(tmp_path / "code.png"), scale=8)
    pdf = FPDF(format="A4")
    pdf.add_page()
    pdf.set_font("Helvetica", size=12)
    pdf.multi_cell(110, 6, "Referral\n\n" + "Please see this patient in clinic. " * 25)
    pdf.image(str(tmp_path / "code.png"), x=145, y=20, w=sheets.QR_MM)
    stuck = bytes(pdf.output())
    pictures = [page_picture(letter_pdf("Before"), 1.0, 0), page_picture(stuck, -1.0, 1)]
    pictures += [page_picture(letter_pdf("Referral p2"), 0.5, 2)]
    pictures += [page_picture(_cover(NEXT), 1.0, 3), page_picture(letter_pdf("Next"), 0.5, 4)]
    codes = read_codes(str(scan_pdf(tmp_path / "stuck.pdf", pictures)))

    assert (codes[1].texts, codes[1].copies) == ((payload,), (1,))
    assert codes[3].copies == (2,)
    documents = plan(codes, KEY)
    assert _routes(documents) == [((0,), None), ((1, 2), FOLDER), ((4,), NEXT)]
    assert documents[1].problems == (ONE_CODE.format(page=2),)
    assert documents[2].problems == ()


def test_a_sheet_with_one_code_marked_over_is_kept_in_its_document(tmp_path: Path) -> None:
    """A pen scribbled across one of a sheet's codes: the other still routes, and the page,
    read once, is kept (a sheet page in the document is the safe failure; a lost page is not)."""
    marked = page_picture(_cover(), 1.0, 0)
    draw = ImageDraw.Draw(marked)
    per_mm = SCAN_DPI / 25.4
    left, top = (210 - 20 - sheets.QR_MM) * per_mm, 20 * per_mm
    for step in range(0, 45, 5):  # a marker's zig-zag over the top code
        draw.line(
            [(left, top + step * per_mm), (left + 45 * per_mm, top + (step + 4) * per_mm)],
            fill=20,
            width=round(2.5 * per_mm),
        )
    pictures = [marked, page_picture(letter_pdf("Report"), -1.0, 1)]
    codes = read_codes(str(scan_pdf(tmp_path / "marked.pdf", pictures)))

    assert codes[0].copies == (1,)
    documents = plan(codes, KEY)
    assert _routes(documents) == [((0, 1), FOLDER)]
    assert documents[0].problems == (ONE_CODE.format(page=1),)
