"""Intake sheets: a cover sheet's code (a folder's id and the sheet's own id, with a keyed MAC, so
a sheet cannot be made or altered for another folder without the key), the separator sheet's
fixed code (paperless-ngx's PATCH T idea: "split here"), and both sheets as printable A4 PDFs.

A cover sheet's code, in QR alphanumeric characters so the code stays small:

    PRS1:C:<folder id>:<sheet id: 16 base32>:<HMAC-SHA256 of "PRS1:C:<folder>:<sheet>", 16 bytes,
    26 base32>

A label's code is the same with L for C: a label is stuck on a document's own first page, which
routes like a cover sheet but is kept (a cover sheet's page is removed). The letter is under the
MAC, so neither becomes the other.

The key is Settings.intake_sheet_mac_key() (BFF_INTAKE_SHEET_KEY, else var/intake_sheet_key).
Pure functions: nothing here reads the database or the settings.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass
from pathlib import Path

import segno
from fpdf import FPDF

VERSION = "PRS1"
SEPARATOR = f"{VERSION}-SEPARATOR"
# Any code of this family, of any version: a sheet of ours, valid or not (splitting.py).
FAMILY = re.compile(r"PRS[0-9]+[:\-]")
MAC_BYTES = 16
SHEET_ID_BYTES = 10  # 80 random bits: 16 base32 characters
MAX_FOLDER_ID = 2**31 - 1  # Folder.id is an IntField
_CODE = re.compile(r"PRS1:([CL]):([1-9][0-9]{0,9}):([A-Z2-7]{16}):([A-Z2-7]{26})")
_SHEET_ID = re.compile(r"[A-Z2-7]{16}")

# The QR code's side on paper, and the fonts tried for names (Debian's fonts-dejavu-core, then
# fonts-liberation); without either, the PDF core font shows Latin-1 only (others as "?").
QR_MM = 45.0
FONTS = (
    ("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", "DejaVuSans-Bold.ttf"),
    ("/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf", "LiberationSans-Bold.ttf"),
)


@dataclass(frozen=True)
class SheetCode:
    """What a verified cover sheet (or label) names: the folder a scan goes to, and the sheet
    (audited); `label`: the code was a label's, on a page of the document itself."""

    folder_id: int
    sheet_id: str
    label: bool = False


def new_sheet_id() -> str:
    """A new random sheet id (16 base32 characters)."""
    return _b32(secrets.token_bytes(SHEET_ID_BYTES))


def sign(folder_id: int, sheet_id: str, key: bytes, *, label: bool = False) -> str:
    """The cover sheet's (or label's) code naming folder_id, authenticated with key."""
    if not 1 <= folder_id <= MAX_FOLDER_ID:
        raise ValueError("a folder id is a whole number from 1 to 2^31-1")
    if not _SHEET_ID.fullmatch(sheet_id):
        raise ValueError("a sheet id is 16 base32 characters (new_sheet_id)")
    body = f"{VERSION}:{'L' if label else 'C'}:{folder_id}:{sheet_id}"
    return f"{body}:{_mac(body, key)}"


def verify(payload: str, key: bytes) -> SheetCode | None:
    """The folder and sheet a cover sheet code names, or None unless its MAC under key verifies
    (a forged, altered, truncated or foreign code)."""
    match = _CODE.fullmatch(payload)
    if match is None:
        return None
    kind, folder, sheet_id, mac = match.groups()
    if int(folder) > MAX_FOLDER_ID:
        return None
    expected = _mac(f"{VERSION}:{kind}:{folder}:{sheet_id}", key)
    if not hmac.compare_digest(expected.encode(), mac.encode()):
        return None
    return SheetCode(int(folder), sheet_id, label=kind == "L")


def _mac(body: str, key: bytes) -> str:
    if not key:
        raise ValueError("the sheet key is empty")
    digest = hmac.new(key, body.encode("ascii"), hashlib.sha256).digest()
    return _b32(digest[:MAC_BYTES])


def _b32(data: bytes) -> str:
    return base64.b32encode(data).decode("ascii").rstrip("=")


# --- PDFs -------------------------------------------------------------------------------------


def cover_sheet_pdf(
    patient_name: str, birth_date: str, record_number: str, folder_label: str, payload: str
) -> bytes:
    """An A4 cover sheet: its QR code (payload) and the patient's details for a person to check.

    Two pages alike, to print on both sides of one sheet: fed face down it still reads, and
    a duplex scan's back of the sheet is removed with it rather than left as a blank first
    page (printed one-sided, the two sheets work alone or together). Two codes a side, so a
    staple or a pen mark across one leaves the other."""
    pdf, family = _document()
    for _side in range(2):
        pdf.add_page()
        pdf.set_xy(20, 20)
        pdf.set_font(family, "B", 26)
        pdf.cell(0, 12, "Cover sheet", new_x="LMARGIN", new_y="NEXT")
        pdf.set_font(family, "", 13)
        pdf.multi_cell(
            110,
            6.5,
            "Scan this page first, on top of the document. The intake files the pages after it "
            "to this patient's folder and removes this sheet.",
            align="L",
            new_x="LMARGIN",
            new_y="NEXT",
        )
        _qr(pdf, payload, x=210 - 20 - QR_MM, y=20)
        _qr(pdf, payload, x=210 - 20 - QR_MM, y=195)
        pdf.set_y(90)
        for label, value in (
            ("Patient", patient_name),
            ("Date of birth", birth_date),
            ("Record number", record_number),
            ("Folder", folder_label),
        ):
            pdf.set_font(family, "", 12)
            pdf.cell(0, 7, label, new_x="LMARGIN", new_y="NEXT")
            pdf.set_font(family, "B", 18)
            shown = _shown(value or "-", family)
            pdf.multi_cell(115, 9, shown, align="L", new_x="LMARGIN", new_y="NEXT")
            pdf.ln(4)
        pdf.set_y(250)
        pdf.set_font(family, "", 10)
        pdf.multi_cell(
            0,
            5,
            "Check the patient above before scanning. Print on both sides, or use either page. "
            "One cover sheet per document; a sheet altered or made elsewhere is not routed, and "
            "its scan waits in the intake inbox for a person.",
            align="L",
            new_x="LMARGIN",
            new_y="NEXT",
        )
    return bytes(pdf.output())


def separator_sheet_pdf() -> bytes:
    """An A4 separator sheet: the batch is split where it lies, and the sheet removed. Two pages
    alike, for both sides of one sheet (as the cover sheet's), two codes a side."""
    pdf, family = _document()
    side = 60.0
    for _side in range(2):
        pdf.add_page()
        pdf.set_xy(20, 20)
        pdf.set_font(family, "B", 30)
        pdf.cell(0, 14, "Separator sheet", align="C", new_x="LMARGIN", new_y="NEXT")
        pdf.set_font(family, "", 14)
        pdf.multi_cell(
            0,
            7,
            "Put this sheet between two documents of a batch: the intake splits the scan here "
            "and removes this sheet. It names no patient.",
            align="C",
            new_x="LMARGIN",
            new_y="NEXT",
        )
        _qr(pdf, SEPARATOR, x=(210 - side) / 2, y=70, side=side)
        pdf.set_y(70 + side + 8)
        pdf.set_font(family, "B", 22)
        pdf.cell(0, 12, "SPLIT HERE", align="C")
        _qr(pdf, SEPARATOR, x=(210 - side) / 2, y=297 - 25 - side, side=side)
    return bytes(pdf.output())


def _document() -> tuple[FPDF, str]:
    pdf = FPDF(format="A4", unit="mm")
    pdf.set_auto_page_break(auto=False)
    pdf.set_margins(20, 20, 20)
    pdf.set_title("Intake sheet")  # the metadata names no patient
    pdf.set_creator("patient-records")
    family = "Helvetica"
    for regular, bold in FONTS:
        path = Path(regular)
        if path.is_file() and (path.parent / bold).is_file():
            family = "Sheet"
            pdf.add_font(family, "", str(path))
            pdf.add_font(family, "B", str(path.parent / bold))
            break
    return pdf, family


def _shown(text: str, family: str) -> str:
    """text as the font can show it: the core font (no TTF found) is Latin-1 only."""
    text = " ".join(text.split())  # no control characters or line breaks from a stored name
    if family == "Helvetica":
        return text.encode("latin-1", "replace").decode("latin-1")
    return text


def _qr(pdf: FPDF, payload: str, *, x: float, y: float, side: float = QR_MM) -> None:
    """payload's QR code (error correction H: a staple or a pen mark still reads) drawn as
    rectangles, a run of dark modules per rectangle, with its quiet zone inside side."""
    code = segno.make(payload, error="h", micro=False, boost_error=False)
    rows = list(code.matrix_iter(scale=1, border=4))
    module = side / len(rows)
    pdf.set_fill_color(0, 0, 0)
    for r, row in enumerate(rows):
        start = None
        for c, dark in enumerate([*row, False]):
            if dark and start is None:
                start = c
            elif not dark and start is not None:
                pdf.rect(x + start * module, y + r * module, (c - start) * module, module, "F")
                start = None
