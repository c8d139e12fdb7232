"""Cover and separator sheets (bff/intake/sheets.py): their codes verify only under the key that
made them and only as made, their PDFs show what a person checks and carry a code that reads,
and the key is kept like the deployment's other secrets."""

from __future__ import annotations

import secrets
import stat
from pathlib import Path

import pypdfium2 as pdfium
import pytest
import zxingcpp

from bff.intake import sheets
from bff.intake.sheets import SheetCode, sign, verify
from config.settings import load_settings

KEY = secrets.token_bytes(32)


def test_a_signed_code_verifies_to_its_folder_and_sheet() -> None:
    sheet_id = sheets.new_sheet_id()
    payload = sign(123, sheet_id, KEY)
    assert payload.startswith("PRS1:C:123:")
    assert verify(payload, KEY) == SheetCode(123, sheet_id)
    label = sign(123, sheet_id, KEY, label=True)
    assert verify(label, KEY) == SheetCode(123, sheet_id, label=True)
    # Small enough for a QR code of a few dozen modules, in its alphanumeric mode.
    assert len(payload) <= 60
    assert set(payload) <= set("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ:")


def test_a_forged_or_altered_code_never_verifies() -> None:
    sheet_id = sheets.new_sheet_id()
    payload = sign(123, sheet_id, KEY)
    assert verify(sign(123, sheet_id, secrets.token_bytes(32)), KEY) is None  # another key
    assert verify(payload.replace(":123:", ":124:"), KEY) is None  # folder changed, MAC kept
    assert verify(payload.replace(":123:", ":0123:"), KEY) is None  # same number, other text
    other_sheet = payload.replace(sheet_id, sheets.new_sheet_id())
    assert verify(other_sheet, KEY) is None
    assert verify(payload.replace("PRS1:C:", "PRS1:L:"), KEY) is None  # a sheet is no label
    mac = payload.rsplit(":", 1)[1]
    for index in range(len(mac)):  # every single character of the MAC matters
        changed = mac[:index] + ("A" if mac[index] != "A" else "B") + mac[index + 1 :]
        assert verify(payload[: -len(mac)] + changed, KEY) is None
    for broken in (payload[:-1], payload + "A", payload.lower(), f" {payload}", payload + "\n"):
        assert verify(broken, KEY) is None
    huge = f"PRS1:C:{2**31}:{sheet_id}:{mac}"
    assert verify(huge, KEY) is None
    assert verify("", KEY) is None
    assert verify(sheets.SEPARATOR, KEY) is None


def test_sign_refuses_what_no_folder_or_sheet_is() -> None:
    for folder in (0, -1, 2**31):
        with pytest.raises(ValueError, match="folder id"):
            sign(folder, sheets.new_sheet_id(), KEY)
    for sheet_id in ("", "short", "a" * 16, "ABCDEFGHIJKLMNO1"):
        with pytest.raises(ValueError, match="sheet id"):
            sign(1, sheet_id, KEY)
    with pytest.raises(ValueError, match="empty"):
        sign(1, sheets.new_sheet_id(), b"")
    ids = {sheets.new_sheet_id() for _ in range(100)}
    assert len(ids) == 100


def _page_of(pdf: bytes) -> tuple[str, list[str], tuple[float, float]]:
    """A sheet's PDF: two pages alike (both sides of the sheet); the first one's text, the codes
    read from it at 150 dpi, and its size in mm."""
    document = pdfium.PdfDocument(pdf)
    try:
        assert len(document) == 2
        sides = []
        for page in document:
            text = page.get_textpage().get_text_bounded()
            picture = page.render(scale=150 / 72, grayscale=True).to_pil()
            codes = [found.text for found in zxingcpp.read_barcodes(picture)]
            sides.append((text, codes, page.get_size()))
    finally:
        document.close()
    assert sides[0] == sides[1]
    text, codes, (width, height) = sides[0]
    return text, codes, (width / 72 * 25.4, height / 72 * 25.4)


def test_a_cover_sheet_pdf_shows_the_patient_and_carries_a_large_code() -> None:
    payload = sign(77, sheets.new_sheet_id(), KEY)
    pdf = sheets.cover_sheet_pdf(
        "Zoë Łukasiewicz-Ångström", "30 January 1955", "MRN-0042", "Cardiology 12", payload
    )

    text, codes, size = _page_of(pdf)

    assert round(size[0]) == 210 and round(size[1]) == 297  # A4
    assert codes == [payload, payload]  # two codes a side: one may be torn or marked
    flat = " ".join(text.split())
    assert "Cover sheet" in flat and "Scan this page first" in flat
    # Names beyond Latin-1 kept whole: the font embedded shows them.
    for shown in ("Zoë Łukasiewicz-Ångström", "30 January 1955", "MRN-0042", "Cardiology 12"):
        assert shown in flat
    document = pdfium.PdfDocument(pdf)
    try:
        assert "Łukasiewicz" not in str(document.get_metadata_dict())  # no patient in metadata
        page = document[0]
        picture = page.render(scale=300 / 72, grayscale=True).to_pil()
    finally:
        document.close()
    found, _other = zxingcpp.read_barcodes(picture)
    corners = [found.position.top_left, found.position.top_right]
    side_mm = abs(corners[1].x - corners[0].x) / 300 * 25.4
    assert 35 <= side_mm <= 50  # the symbol itself, inside its quiet zone


def test_a_cover_sheet_without_details_still_prints() -> None:
    payload = sign(5, sheets.new_sheet_id(), KEY)
    text, codes, _size = _page_of(sheets.cover_sheet_pdf("", "", "", "Folder 5", payload))
    assert codes == [payload, payload]
    assert "Folder 5" in text


def test_without_a_font_file_the_sheet_prints_latin_1_and_marks_the_rest(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """On a server without Debian's fonts (fonts-dejavu-core, fonts-liberation) the PDF core
    font prints the name: what it cannot show is a visible "?", never dropped silently."""
    monkeypatch.setattr(sheets, "FONTS", ())
    payload = sign(9, sheets.new_sheet_id(), KEY)
    text, codes, _size = _page_of(
        sheets.cover_sheet_pdf("Zoë Łukasz", "1 May 1950", "R9", "F", payload)
    )
    assert codes == [payload, payload]
    assert "Zoë ?ukasz" in text


def test_a_separator_sheet_pdf_carries_the_separator_code() -> None:
    text, codes, _size = _page_of(sheets.separator_sheet_pdf())
    assert codes == [sheets.SEPARATOR, sheets.SEPARATOR]
    assert "Separator sheet" in text


def test_the_key_is_generated_once_and_kept_like_the_other_secrets(tmp_path: Path) -> None:
    settings = load_settings(var_dir=tmp_path / "var")
    key = settings.intake_sheet_mac_key()
    kept = tmp_path / "var" / "intake_sheet_key"
    assert len(key) >= 32
    assert kept.read_text().strip().encode() == key
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600
    assert load_settings(var_dir=tmp_path / "var").intake_sheet_mac_key() == key
    chosen = "k" * 40
    configured = load_settings(var_dir=tmp_path / "var", intake_sheet_key=chosen)
    assert configured.intake_sheet_mac_key() == chosen.encode()
