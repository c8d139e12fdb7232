"""How a page's picture is encoded (issue 50): typed pages as lossless WebP, many times smaller
and sharp, photos and scans as lossy WebP, whichever is smaller, decided on a reduced copy."""

from __future__ import annotations

import io

import pytest
from fpdf import FPDF
from PIL import Image, ImageFilter

from bff.files import previews
from bff.files.previews import pdf_page


def _letter(photo: bytes | None = None) -> bytes:
    """A one-page typed letter, with a photo in it when given one."""
    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", size=12)
    if photo is not None:
        pdf.image(io.BytesIO(photo), x=10, y=150, w=150)
    for line in range(30):
        pdf.cell(
            0,
            8,
            f"Discharge letter, line {line}: allergic to penicillin.",
            new_x="LMARGIN",
            new_y="NEXT",
        )
    return bytes(pdf.output())


def _photo() -> bytes:
    """A photo-like JPEG: smooth shading and noise, thousands of colours."""
    shade = Image.linear_gradient("L").resize((600, 450)).convert("RGB")
    noise = Image.effect_noise((600, 450), 40).convert("RGB")
    image = Image.blend(shade, noise, 0.3).filter(ImageFilter.GaussianBlur(1))
    out = io.BytesIO()
    image.save(out, "JPEG", quality=85)
    return out.getvalue()


def _scan(pdf: bytes) -> bytes:
    """A page as a scanner makes it: an image-only PDF of the page rendered, turned a little,
    softened, and saved as JPEG."""
    page = Image.open(io.BytesIO(pdf_page(pdf, 1, 800))).convert("RGB")
    scanned = page.rotate(0.7, fillcolor=(250, 248, 240)).filter(ImageFilter.GaussianBlur(0.8))
    noisy = Image.blend(scanned, Image.effect_noise(scanned.size, 30).convert("RGB"), 0.06)
    jpeg = io.BytesIO()
    noisy.save(jpeg, "JPEG", quality=75)
    out = io.BytesIO()
    Image.open(jpeg).save(out, "PDF", resolution=96)
    return out.getvalue()


def _kind(webp: bytes) -> str:
    """VP8L (lossless) or VP8 (lossy), from a simple WebP's first chunk."""
    assert webp[:4] == b"RIFF" and webp[8:12] == b"WEBP"
    return webp[12:16].decode().strip()


def _lossy_size(webp: bytes) -> int:
    out = io.BytesIO()
    Image.open(io.BytesIO(webp)).save(out, format="WEBP", quality=80, method=1)
    return len(out.getvalue())


def test_a_typed_page_is_lossless_and_many_times_smaller() -> None:
    for width in (800, 1280):
        picture = pdf_page(_letter(), 1, width)
        assert _kind(picture) == "VP8L"
        assert len(picture) * 4 < _lossy_size(picture), width


def test_a_scan_and_a_photo_in_a_letter_stay_lossy() -> None:
    for pdf in (_scan(_letter()), _letter(photo=_photo())):
        picture = pdf_page(pdf, 1, 800)
        assert _kind(picture) == "VP8"


def test_a_page_of_many_pixels_is_lossy_within_the_workers_memory() -> None:
    """Lossless takes two to three times lossy's memory: over WEBP_LOSSLESS_PIXELS a typed page
    is lossy (a 1000 x 3000 pt page at 2000 px is 12 megapixels: lossless needed 374-531 MB and
    failed in a worker of 384-448 MB, a 500 in the viewer)."""
    pdf = FPDF(unit="pt", format=(1000, 3000))
    pdf.add_page()
    pdf.set_font("Helvetica", size=24)
    pdf.cell(0, 30, "Discharge letter: allergic to penicillin.")
    picture = pdf_page(bytes(pdf.output()), 1, 2000)
    assert _kind(picture) == "VP8"
    assert pdf_page(_letter(), 1, 2000)[12:16] == b"VP8L"  # 2000 x 2829: within


def test_a_lossless_encoding_that_fails_is_lossy_instead(monkeypatch: pytest.MonkeyPatch) -> None:
    """Out of memory, libwebp's lossless encoder fails (Pillow: ValueError "encoding error 1"):
    the picture is encoded lossy, not refused."""
    real = previews._encode_webp

    def out_of_memory(image: Image.Image, *, lossless: bool) -> bytes:
        if lossless and image.width >= 800:  # the trial on a reduced copy still runs
            raise ValueError("encoding error 1")
        return real(image, lossless=lossless)

    monkeypatch.setattr(previews, "_encode_webp", out_of_memory)
    assert _kind(pdf_page(_letter(), 1, 800)) == "VP8"
