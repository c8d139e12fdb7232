"""An image's size read by hand from its header (bff/files/pixels.py): the size Pillow reads,
for each format and its variants; nothing for what does not say; the browser's budget."""

from __future__ import annotations

import io
import struct

import pytest
from PIL import Image

from bff.files.images import MAX_PIXELS
from bff.files.pixels import HEAD_BYTES, Size, image_size, within_budget


def saved(image: Image.Image, fmt: str, **options: object) -> bytes:
    out = io.BytesIO()
    image.save(out, fmt, **options)
    return out.getvalue()


def exif() -> bytes:
    data = Image.Exif()
    data[0x0112] = 6  # orientation: turned
    data[0x010F] = "Camera"
    return data.tobytes()


@pytest.mark.parametrize(
    ("fmt", "options", "mode"),
    [
        ("PNG", {}, "RGB"),
        ("PNG", {}, "1"),
        ("PNG", {}, "P"),
        ("JPEG", {}, "RGB"),
        ("JPEG", {"progressive": True, "exif": exif(), "icc_profile": b"\0" * 70_000}, "RGB"),
        ("JPEG", {}, "CMYK"),
        ("GIF", {}, "P"),
        ("WEBP", {"lossless": False}, "RGB"),
        ("WEBP", {"lossless": True}, "RGB"),
        ("WEBP", {"exif": exif()}, "RGBA"),  # VP8X
        ("BMP", {}, "RGB"),
        ("BMP", {}, "1"),
    ],
)
def test_the_header_says_the_size_pillow_reads(fmt: str, options: dict, mode: str) -> None:
    for size in ((1, 1), (643, 411), (4001, 3)):
        data = saved(Image.new(mode, size), fmt, **options)
        assert image_size(data[:HEAD_BYTES]) == Size(fmt, *size), (fmt, options, size)
        assert Image.open(io.BytesIO(data)).size == size


def test_a_gif_whose_first_frame_is_larger_than_its_screen_counts_the_frame() -> None:
    """Browsers draw a first frame larger than the logical screen whole: its size counts."""
    frame = saved(Image.new("P", (10, 10)), "GIF", comment=b"x" * 600)
    # The screen says 10 x 10; the first frame's descriptor 9000 x 7000 at (5, 5).
    at = frame.index(b"\x2c")
    forged = frame[:at] + b"\x2c" + struct.pack("<HHHH", 5, 5, 9000, 7000) + frame[at + 9 :]
    assert image_size(forged) == Size("GIF", 9005, 7005)
    assert not within_budget(forged)


def test_bmp_top_down_and_os2_headers() -> None:
    data = bytearray(saved(Image.new("RGB", (30, 20)), "BMP"))
    data[22:26] = struct.pack("<i", -20)  # rows stored top-down
    assert image_size(bytes(data)) == Size("BMP", 30, 20)
    core = b"BM" + bytes(12) + struct.pack("<IHHHH", 12, 50_000, 50_000, 1, 24)
    assert image_size(core) == Size("BMP", 50_000, 50_000)


def test_the_review_bomb_header_is_read_as_900_megapixels() -> None:
    header = struct.pack(">IIBBBBB", 30_000, 30_000, 1, 0, 0, 0, 0)
    png = b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + b"IHDR" + header + b"\0\0\0\0"
    assert image_size(png) == Size("PNG", 30_000, 30_000)
    assert image_size(png).pixels == 900_000_000  # type: ignore[union-attr]
    assert not within_budget(png)


@pytest.mark.parametrize(
    "head",
    [
        b"",
        b"hello, world",
        b"<svg xmlns='http://www.w3.org/2000/svg'/>",
        b"%PDF-1.7",
        b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0",  # cut inside the header
        b"\xff\xd8\xff\xe1\xff\xff" + b"\0" * 100,  # a segment running past the bytes read
        b"\xff\xd8\xff\xda\0\x08",  # a scan before any frame header
        b"GIF89a\x10\0\x10\0\x80\0\0",  # its colour table past the bytes read
        b"RIFF\0\0\0\0WEBPVP8 \0\0\0\0",
    ],
)
def test_what_does_not_say_its_size_has_none_and_is_not_within_budget(head: bytes) -> None:
    assert image_size(head) is None
    assert not within_budget(head)


def test_a_jpeg_whose_frame_header_lies_beyond_the_bytes_read_does_not_say() -> None:
    """Metadata segments of 64 KB each past HEAD_BYTES: the size is not known, not guessed."""
    data = saved(Image.new("RGB", (20, 20)), "JPEG")
    filler = b"\xff\xe2" + struct.pack(">H", 65_535) + b"\0" * 65_533
    padded = data[:2] + filler * 5 + data[2:]
    assert Image.open(io.BytesIO(padded)).size == (20, 20)
    assert image_size(padded[:HEAD_BYTES]) is None
    assert image_size(padded) == Size("JPEG", 20, 20)


def test_the_budget_is_the_thumbnails() -> None:
    def png(width: int, height: int) -> bytes:
        header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
        return b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + b"IHDR" + header

    assert MAX_PIXELS == 12_000_000
    assert within_budget(png(4000, 3000))
    assert not within_budget(png(4000, 3001))
    assert not within_budget(png(0, 10))
