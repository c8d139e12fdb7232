"""Scans made for the intake's tests as a scanner would: real PDFs (the sheets, letters written
by fpdf2) rendered by pdfium at the scanner's resolution, turned a little, with noise, and saved
as one image-only multi-page PDF (Pillow), or as a fax's multi-page TIFF."""

from __future__ import annotations

import functools
import random
from pathlib import Path

import pypdfium2 as pdfium
from fpdf import FPDF
from PIL import Image, ImageDraw

SCAN_DPI = 200


def letter_pdf(title: str) -> bytes:
    """A one-page typed letter (no barcode)."""
    pdf = FPDF(format="A4")
    pdf.add_page()
    pdf.set_font("Helvetica", size=12)
    pdf.multi_cell(
        0, 6, f"{title}\n\n" + "Dear colleague, thank you for seeing this patient. " * 30
    )
    return bytes(pdf.output())


def page_picture(pdf: bytes, degrees: float, seed: int) -> Image.Image:
    """pdf's first page as a scanner gives it: grey at SCAN_DPI, turned by degrees, with noise."""
    return _scanned(pdf, degrees, seed).copy()


@functools.lru_cache(maxsize=32)
def _scanned(pdf: bytes, degrees: float, seed: int) -> Image.Image:
    document = pdfium.PdfDocument(pdf)
    try:
        bitmap = document[0].render(scale=SCAN_DPI / 72, grayscale=True)
        picture = bitmap.to_pil().convert("L")
    finally:
        document.close()
    picture = picture.rotate(degrees, resample=Image.Resampling.BICUBIC, fillcolor=255)
    # Uniform noise from the seed (the same scan each run): a few grey levels on every pixel.
    noise = Image.frombytes(
        "L", picture.size, random.Random(seed).randbytes(picture.width * picture.height)
    )
    return Image.blend(picture, noise, 0.12)


def scan_pdf(path: Path, pictures: list[Image.Image]) -> Path:
    """pictures saved as one image-only PDF (JPEG pages), as a scanner writes a batch."""
    pictures[0].save(path, save_all=True, append_images=pictures[1:], resolution=SCAN_DPI)
    return path


def scan_tiff(path: Path, pictures: list[Image.Image]) -> Path:
    """pictures saved as a fax's multi-page black-and-white TIFF (CCITT group 4)."""
    pages = [
        picture.point(lambda value: 255 if value > 160 else 0).convert("1") for picture in pictures
    ]
    pages[0].save(
        path, save_all=True, append_images=pages[1:], compression="group4", dpi=(SCAN_DPI, SCAN_DPI)
    )
    return path


def blank_pdf() -> bytes:
    """An empty A4 page: the back of a sheet printed one-sided."""
    pdf = FPDF(format="A4")
    pdf.add_page()
    return bytes(pdf.output())


def lines_pdf(*lines: str) -> bytes:
    """A sparse page: a few typed lines and nothing else."""
    pdf = FPDF(format="A4")
    pdf.add_page()
    pdf.set_font("Helvetica", size=12)
    pdf.multi_cell(0, 6, "\n".join(lines))
    return bytes(pdf.output())


def dusty(picture: Image.Image, seed: int, specks: int = 300) -> Image.Image:
    """picture with a scanner's dirt: dust specks (1-3 pixels) and a streak down the page."""
    picture = picture.copy()
    draw = ImageDraw.Draw(picture)
    chance = random.Random(seed)
    for _ in range(specks):
        x, y, side = chance.randrange(picture.width), chance.randrange(picture.height), 2
        draw.rectangle([x, y, x + chance.randrange(side), y + chance.randrange(side)], fill=60)
    column = picture.width * 2 // 5
    draw.line([(column, 0), (column, picture.height)], fill=90, width=2)
    return picture
