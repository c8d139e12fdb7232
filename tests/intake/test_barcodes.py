"""Scans read as the intake reads them: printed sheets (bff/intake/sheets.py) rendered, turned and
noised like a scanner's pages, their codes read by bff/intake/barcodes.py and the batch planned
by bff/intake/splitting.py."""

from __future__ import annotations

import io
import secrets
import time
from pathlib import Path

import pypdfium2 as pdfium
import pytest
import segno
import zxingcpp
from fpdf import FPDF
from PIL import Image, ImageDraw

from bff.intake import sheets
from bff.intake.barcodes import CodesUnreadable, PageCodes, read_codes
from bff.intake.splitting import DAMAGED, plan
from bff.workers import WorkerPool
from tests.intake.sheet_scans import SCAN_DPI, letter_pdf, page_picture, scan_pdf, scan_tiff

KEY = secrets.token_bytes(32)
FOLDER = 4242


def _cover(folder_id: int = FOLDER, key: bytes = KEY, payload: str | None = None) -> bytes:
    code = payload or sheets.sign(folder_id, sheets.new_sheet_id(), key)
    return sheets.cover_sheet_pdf("Zoë Łukasiewicz", "30/01/1955", "MRN-77", "Ward 3", code)


def _letter(n: int) -> bytes:
    return letter_pdf(f"Letter {n}")


def _scan(tmp_path: Path, *pdfs: bytes, name: str = "scan.pdf") -> Path:
    pictures = [page_picture(pdf, (1.0, -2.0, 3.0, -1.5)[i % 4], i) for i, pdf in enumerate(pdfs)]
    return scan_pdf(tmp_path / name, pictures)


def test_a_cover_sheet_scan_routes_its_pages_to_the_folder_without_the_sheet(
    tmp_path: Path,
) -> None:
    sheet_id = sheets.new_sheet_id()
    cover = _cover(payload=sheets.sign(FOLDER, sheet_id, KEY))
    scan = _scan(tmp_path, cover, _letter(1), _letter(2))

    started = time.monotonic()
    codes = read_codes(str(scan))
    elapsed = time.monotonic() - started

    # Both codes of the sheet read (a printed sheet's two, so its page is removed).
    assert codes == [
        PageCodes((sheets.sign(FOLDER, sheet_id, KEY),), copies=(2,)),
        PageCodes(),
        PageCodes(),
    ]
    (document,) = plan(codes, KEY)
    assert document.pages == (1, 2)
    assert document.route == sheets.SheetCode(FOLDER, sheet_id)
    assert document.problems == ()
    print(f"read_codes: {elapsed / 3 * 1000:.0f} ms a page")


@pytest.mark.parametrize("how", ["forged", "altered"])
def test_a_forged_or_altered_sheet_routes_nothing(tmp_path: Path, how: str) -> None:
    """Forged: made with another installation's key. Altered: the folder id changed, the MAC
    of the genuine sheet kept. Both read, neither routes; the sheet page stays for a person."""
    genuine = sheets.sign(FOLDER, sheets.new_sheet_id(), KEY)
    if how == "forged":
        payload = sheets.sign(FOLDER, sheets.new_sheet_id(), secrets.token_bytes(32))
    else:
        payload = genuine.replace(f":{FOLDER}:", f":{FOLDER + 1}:")
    scan = _scan(tmp_path, _cover(payload=payload), _letter(1), _letter(2))

    codes = read_codes(str(scan))

    # Read exactly: refused for its MAC, not missed.
    assert codes[0] == PageCodes((payload,), copies=(2,))
    (document,) = plan(codes, KEY)
    assert document.route is None
    assert document.pages == (0, 1, 2)
    assert "did not verify" in document.problems[0]


def test_a_batch_is_split_at_its_separator_sheets(tmp_path: Path) -> None:
    separator = sheets.separator_sheet_pdf()
    scan = _scan(
        tmp_path,
        _letter(1),
        separator,
        _letter(2),
        _letter(3),
        separator,
        _letter(4),
    )

    documents = plan(read_codes(str(scan)), KEY)

    assert [d.pages for d in documents] == [(0,), (2, 3), (5,)]
    assert all(d.route is None and not d.problems for d in documents)


def test_a_cover_sheet_mid_batch_splits_and_routes_the_pages_after_it(tmp_path: Path) -> None:
    scan = _scan(tmp_path, _letter(1), _letter(2), _cover(folder_id=7), _letter(3), _letter(4))

    documents = plan(read_codes(str(scan)), KEY)

    assert [(d.pages, d.route and d.route.folder_id) for d in documents] == [
        ((0, 1), None),
        ((3, 4), 7),
    ]


def test_a_sheet_printed_on_both_sides_and_scanned_duplex_is_removed_whole(
    tmp_path: Path,
) -> None:
    """Both sides of a two-sided cover sheet carry its code: a duplex scan's back of the sheet
    is removed with it (not left as the document's blank first page), and a sheet fed face
    down still routes. So with the separator sheet."""
    cover = _cover()
    pictures = [page_picture(cover, 1.0, 0), page_picture(_back(cover), -1.0, 1)]
    pictures += [page_picture(_letter(1), 0.5, 2), page_picture(_letter(2), 0.5, 3)]
    separator = sheets.separator_sheet_pdf()
    pictures += [page_picture(separator, 2.0, 4), page_picture(_back(separator), -2.0, 5)]
    pictures.append(page_picture(_letter(3), 0.5, 6))
    scan = scan_pdf(tmp_path / "duplex.pdf", pictures)

    documents = plan(read_codes(str(scan)), KEY)

    assert [(d.pages, d.route and d.route.folder_id) for d in documents] == [
        ((2, 3), FOLDER),
        ((6,), None),
    ]


def _back(pdf: bytes) -> bytes:
    """A two-page PDF's second page (the back of the sheet) as a PDF of its own."""
    document = pdfium.PdfDocument(pdf)
    back = pdfium.PdfDocument.new()
    try:
        assert len(document) == 2
        back.import_pages(document, [1])
        out = io.BytesIO()
        back.save(out)
        return out.getvalue()
    finally:
        back.close()
        document.close()


def test_a_damaged_sheet_after_a_routed_document_stops_the_routing(tmp_path: Path) -> None:
    """A cover sheet whose codes are torn past reading, mid-batch: its pages would otherwise join
    the patient before it. Found as a code that could not be read, they wait for a person."""
    damaged = page_picture(_cover(folder_id=7), 1.0, 2)
    draw = ImageDraw.Draw(damaged)
    per_mm = SCAN_DPI / 25.4
    for top in (20, 195):  # both codes of the sheet: a strip across each, a third of its width
        left = 210 - 20 - sheets.QR_MM + 12
        draw.rectangle(
            [left * per_mm, (top + 4) * per_mm, (left + 14) * per_mm, (top + 41) * per_mm],
            fill=255,
        )
    pictures = [page_picture(_cover(), -1.0, 0), page_picture(_letter(1), 2.0, 1), damaged]
    pictures += [page_picture(_letter(2), -2.0, 3)]
    scan = scan_pdf(tmp_path / "damaged.pdf", pictures)

    codes = read_codes(str(scan))

    assert codes[2].texts == ()
    assert codes[2].damaged >= 1  # both codes torn: found, not decoded
    documents = plan(codes, KEY)
    assert [(d.pages, d.route and d.route.folder_id) for d in documents] == [
        ((1,), FOLDER),
        ((2, 3), None),
    ]
    assert documents[1].problems == (DAMAGED.format(page=3),)


def test_a_small_torn_code_in_a_routed_document_is_content(tmp_path: Path) -> None:
    """Only a code of a sheet's size stops the routing: a lab report's small QR code, torn,
    stays a page of the routed document."""
    segno.make("https://lab.example/report/123", error="l").save(str(tmp_path / "own.png"), scale=8)
    pdf = FPDF(format="A4")
    pdf.add_page()
    pdf.set_font("Helvetica", size=12)
    pdf.cell(0, 10, "Lab report")
    pdf.image(str(tmp_path / "own.png"), x=150, y=30, w=12)
    torn = page_picture(bytes(pdf.output()), 1.0, 5)
    per_mm = SCAN_DPI / 25.4
    ImageDraw.Draw(torn).rectangle(
        [(150 + 4.8) * per_mm, 30 * per_mm, (150 + 6) * per_mm, 42 * per_mm], fill=255
    )
    scan = scan_pdf(tmp_path / "lab.pdf", [page_picture(_cover(), 1.0, 0), torn])

    (document,) = plan(read_codes(str(scan)), KEY)

    assert (document.pages, document.route and document.route.folder_id) == ((1,), FOLDER)
    assert document.problems == ()


def test_a_scan_without_codes_is_one_unrouted_document(tmp_path: Path) -> None:
    """A letter's own QR code (not a sheet of ours) is content: no split, no route."""
    pdf = FPDF(format="A4")
    pdf.add_page()
    pdf.set_font("Helvetica", size=12)
    pdf.cell(0, 10, "Lab report: see the portal")
    segno.make("https://lab.example/report/123").save(str(tmp_path / "own.png"), scale=8)
    pdf.image(str(tmp_path / "own.png"), x=150, y=30, w=40)
    lab_report = bytes(pdf.output())
    scan = _scan(tmp_path, _letter(1), lab_report, _letter(2))

    codes = read_codes(str(scan))

    own = PageCodes(("https://lab.example/report/123",), copies=(1,))
    assert codes == [PageCodes(), own, PageCodes()]
    assert [(d.pages, d.route, d.problems) for d in plan(codes, KEY)] == [((0, 1, 2), None, ())]


def test_a_datamatrix_label_on_a_letter_routes_it_and_keeps_its_page(tmp_path: Path) -> None:
    """A label's code (DataMatrix, as a label printer makes it) stuck on a letter's first
    page: the letter goes to the folder with that page, which is the letter's own."""
    payload = sheets.sign(FOLDER, sheets.new_sheet_id(), KEY, label=True)
    symbol = zxingcpp.write_barcode_to_image(
        zxingcpp.create_barcode(payload, zxingcpp.BarcodeFormat.DataMatrix), scale=8
    )
    pixels = memoryview(symbol)  # type: ignore[arg-type]  # zxing-cpp's Image is a buffer
    rows, columns = pixels.shape or (0, 0)
    Image.frombytes("L", (columns, rows), pixels.tobytes()).save(tmp_path / "label.png")
    pdf = FPDF(format="A4")
    pdf.add_page()
    pdf.set_font("Helvetica", size=12)
    pdf.multi_cell(120, 6, "Discharge summary\n\n" + "The patient was discharged home. " * 20)
    pdf.image(str(tmp_path / "label.png"), x=135, y=15, w=60)
    labelled = bytes(pdf.output())
    scan = _scan(tmp_path, _letter(1), labelled, _letter(2))

    codes = read_codes(str(scan))

    assert codes == [PageCodes(), PageCodes((payload,), copies=(1,)), PageCodes()]
    documents = plan(codes, KEY)
    assert [(d.pages, d.route and d.route.folder_id) for d in documents] == [
        ((0,), None),
        ((1, 2), FOLDER),
    ]


def test_a_faxed_multi_page_tiff_is_read_page_by_page(tmp_path: Path) -> None:
    cover = _cover()
    pictures = [page_picture(pdf, 1.5, i) for i, pdf in enumerate([cover, _letter(1)])]
    pictures.append(page_picture(sheets.separator_sheet_pdf(), -2.0, 3))
    pictures.append(page_picture(_letter(2), 0.5, 4))
    fax = scan_tiff(tmp_path / "fax.tiff", pictures)

    documents = plan(read_codes(str(fax)), KEY)

    assert [(d.pages, d.route and d.route.folder_id) for d in documents] == [
        ((1,), FOLDER),
        ((3,), None),
    ]


async def test_codes_are_read_in_a_worker_pool(tmp_path: Path) -> None:
    """A plain function of a path: it runs in a worker process, and its refusals come back."""
    scan = _scan(tmp_path, _cover(), _letter(1))
    pool = WorkerPool(1, 0, 60)
    try:
        codes = await pool.run(read_codes, str(scan))
        assert len(codes) == 2
        assert sheets.verify(codes[0].texts[0], KEY) is not None
        with pytest.raises(CodesUnreadable, match="at most 1 in one file"):
            await pool.run(read_codes, str(scan), 1)
    finally:
        await pool.close()


def test_scans_beyond_the_bounds_or_damaged_are_refused_whole(tmp_path: Path) -> None:
    scan = _scan(tmp_path, _letter(1), _letter(2), _letter(3))
    with pytest.raises(CodesUnreadable, match="has 3 pages; the intake reads at most 2"):
        read_codes(str(scan), max_pages=2)

    prefixed = tmp_path / "prefixed.pdf"  # bytes before the header, as some scanners write
    prefixed.write_bytes(b"\r\n" * 8 + scan.read_bytes())
    assert read_codes(str(prefixed)) == [PageCodes()] * 3

    truncated = tmp_path / "truncated.pdf"
    truncated.write_bytes(scan.read_bytes()[:2000])
    with pytest.raises(CodesUnreadable, match="PDF is damaged"):
        read_codes(str(truncated))

    garbage = tmp_path / "garbage.bin"
    garbage.write_bytes(b"not a scan at all" * 100)
    with pytest.raises(CodesUnreadable, match="image is damaged"):
        read_codes(str(garbage))

    missing = tmp_path / "missing.pdf"
    with pytest.raises(CodesUnreadable, match="could not be opened"):
        read_codes(str(missing))
