"""An image's size read by hand from its first bytes, with no decoder: how many pixels a browser
would decode (PNG, JPEG, GIF, WebP, BMP), cheap enough to ask on every view.

The view routes send an image's original inline only when its header says it is within the
browser's budget (bff/files/images.py MAX_PIXELS); any other image, or one whose header these
bytes do not tell, is a download (bff/files/delivery.py). The viewer reads the same answer
(bff/files/viewer.py) and the streamed reduction its bound (bff/files/previews.py). Nothing here
allocates by what a header claims (Pillow's WebP reader allocates the whole canvas to read one).
"""

from __future__ import annotations

import struct
from typing import NamedTuple

from bff.files.images import MAX_PIXELS
from storage.base import ReadStream

# Enough for any header: a PNG's is in its first 33 bytes; a JPEG's frame header follows its
# metadata segments (EXIF and XMP are at most 64 KB each, ICC profiles a few hundred KB at most).
HEAD_BYTES = 256 * 1024
# JPEG's start-of-frame markers: C0-CF but C4 (Huffman tables), C8 (reserved), CC (arithmetic).
_SOF = frozenset(range(0xC0, 0xD0)) - {0xC4, 0xC8, 0xCC}


class Size(NamedTuple):
    """An image's format (Pillow's names) and size in pixels."""

    format: str
    width: int
    height: int

    @property
    def pixels(self) -> int:
        """width x height."""
        return self.width * self.height


def _png(head: bytes) -> Size | None:
    if len(head) < 24 or head[12:16] != b"IHDR":
        return None
    width, height = struct.unpack(">II", head[16:24])
    return Size("PNG", width, height)


def _jpeg(head: bytes) -> Size | None:
    """The frame header's size, found by walking the segments before it."""
    at = 2
    while at + 4 <= len(head):
        if head[at] != 0xFF:
            return None
        marker = head[at + 1]
        if marker == 0xFF:  # fill byte
            at += 1
            continue
        if marker in (0x01, 0xD8) or 0xD0 <= marker <= 0xD7:  # no length
            at += 2
            continue
        if marker in (0xD9, 0xDA):  # end of image, start of scan: no frame header before
            return None
        (length,) = struct.unpack(">H", head[at + 2 : at + 4])
        if length < 2:
            return None
        if marker in _SOF:
            if at + 9 > len(head):
                return None
            height, width = struct.unpack(">HH", head[at + 5 : at + 9])
            return Size("JPEG", width, height) if height else None  # 0: given later (DNL)
        at += 2 + length
    return None


def _gif(head: bytes) -> Size | None:
    """The logical screen, grown to the first frame when that is larger (browsers draw a first
    frame larger than the screen whole)."""
    if len(head) < 13:
        return None
    width, height, flags = struct.unpack("<HHB", head[6:11])
    at = 13 + (3 << ((flags & 7) + 1) if flags & 0x80 else 0)
    while at < len(head):
        block = head[at]
        if block == 0x2C:  # the first frame's descriptor
            if at + 9 > len(head):
                return None
            left, top, w, h = struct.unpack("<HHHH", head[at + 1 : at + 9])
            return Size("GIF", max(width, left + w), max(height, top + h))
        if block == 0x3B:  # trailer: no frame
            return Size("GIF", width, height)
        if block != 0x21 or at + 2 >= len(head):  # an extension, then its sub-blocks
            return None
        at += 2
        while at < len(head) and head[at]:
            at += head[at] + 1
        at += 1
    return None


def _webp(head: bytes) -> Size | None:
    if len(head) < 30:
        return None
    chunk = head[12:16]
    if chunk == b"VP8 " and head[23:26] == b"\x9d\x01\x2a":
        width, height = struct.unpack("<HH", head[26:30])
        return Size("WEBP", width & 0x3FFF, height & 0x3FFF)
    if chunk == b"VP8L" and head[20] == 0x2F:
        (bits,) = struct.unpack("<I", head[21:25])
        return Size("WEBP", (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1)
    if chunk == b"VP8X":
        width = int.from_bytes(head[24:27], "little") + 1
        height = int.from_bytes(head[27:30], "little") + 1
        return Size("WEBP", width, height)
    return None


def _bmp(head: bytes) -> Size | None:
    if len(head) < 26:
        return None
    (header,) = struct.unpack("<I", head[14:18])
    if header == 12:  # OS/2 1.x: 16-bit sizes
        width, height = struct.unpack("<HH", head[18:22])
        return Size("BMP", width, height)
    width, height = struct.unpack("<ii", head[18:26])
    return Size("BMP", abs(width), abs(height))  # a negative height: rows top-down


def image_size(head: bytes) -> Size | None:
    """The format and size an image's first bytes say (HEAD_BYTES of them suffice), or None
    when they are not an image of these formats or do not tell."""
    try:
        if head.startswith(b"\x89PNG\r\n\x1a\n"):
            return _png(head)
        if head.startswith(b"\xff\xd8"):
            return _jpeg(head)
        if head.startswith((b"GIF87a", b"GIF89a")):
            return _gif(head)
        if head.startswith(b"RIFF") and head[8:12] == b"WEBP":
            return _webp(head)
        if head.startswith(b"BM"):
            return _bmp(head)
    except (struct.error, IndexError):
        return None
    return None


def within_budget(head: bytes) -> bool:
    """Whether a browser may be given this image to decode: its header says at most MAX_PIXELS
    (the thumbnail's budget, bff/files/images.py). False when it does not tell."""
    size = image_size(head)
    return size is not None and 0 < size.pixels <= MAX_PIXELS


async def read_head(stream: ReadStream) -> bytes:
    """The first HEAD_BYTES (at most) of an opened stream, which is closed after."""
    head = bytearray()
    async with stream:
        async for chunk in stream:
            head += chunk
            if len(head) >= HEAD_BYTES:
                break
    return bytes(head[:HEAD_BYTES])
