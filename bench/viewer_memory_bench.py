"""The conversion and viewer worker pool's memory limit (BFF_CONVERSION_MEMORY_MB, issue 47
item 10b) against what its jobs need, and the viewer's images beyond the browser's budget
(item 11).

For each job the pool runs, at its largest legitimate size, in a real WorkerPool with the
default limit: its peak address space (VmPeak, what RLIMIT_AS counts) and peak resident memory
(VmHWM), and how long it took: a 20 MB RTF (BFF_RTF_MAX_MB), a 12-megapixel PNG profile image,
a scanned A4 PDF page at the viewer's widest (2000 px), and the viewer's reduced copies by
Pillow (no libvips) of a 20-megapixel PNG, a 24-megapixel JPEG and a 100-megapixel PNG (the
most it decodes); then the opening of the review's bomb without libvips (refused from its
header) and reduced copies under a 256 MB limit (refused, the worker replaced, the next job
served). Then libvips's streamed copies (BFF_VIPSTHUMBNAIL, when installed) of the review's
bomb, real 900-megapixel PNGs (30000 x 30000 pixels of one colour, 1-bit, 8-bit grey and RGB:
160 KB to 2.6 MB on disk, 0.9-2.7 GB decoded), of a 20 MP and a 100 MP PNG, at the default limit
and at 256 MB: for these the peak resident memory of vipsthumbnail itself (the worker's child,
`child MB`) is what counts.

Usage (from the repository root): .venv/bin/python bench/viewer_memory_bench.py
"""

from __future__ import annotations

import asyncio
import io
import re
import resource
import struct
import sys
import tempfile
import time
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

# Run as a script (bench/x.py), the repo root is not on the path: the tooling lives there.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from PIL import Image, ImageDraw

from bff.files.conversions import WORKER_MODULES
from bff.files.images import process_profile_image
from bff.files.previews import PreviewRefused, Reducer, image_display, pdf_page, reduced_image
from bff.files.rtf import convert_rtf
from bff.workers import WorkerOutOfMemory, WorkerPool
from config.settings import Settings

MB = 1024 * 1024


def measured(func: Callable[..., Any], *args: Any) -> tuple[str, int, int, int]:
    """func(*args) in this worker: what it gave (its type, or the refusal), then this process's
    peak address space and peak resident memory so far, and its children's (vipsthumbnail's)
    peak resident memory, in MB (a fresh worker per job)."""
    try:
        outcome = type(func(*args)).__name__
    except PreviewRefused as exc:
        outcome = f"refused: {exc}"
    status = Path("/proc/self/status").read_text()

    def field(name: str) -> int:
        found = re.search(name + r":\s+(\d+)", status)
        return int(found.group(1)) // 1024 if found else -1

    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024
    return outcome, field("VmPeak"), field("VmHWM"), children


def one_colour_png(width: int, height: int, rows: int | None = None) -> bytes:
    """An 8-bit RGB PNG of one colour; `rows` fewer than height: a header claiming more than the
    file holds (an image bomb)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        )

    line = b"\x00" + b"\x30\x60\x90" * width
    compressor = zlib.compressobj(6)
    body = b"".join(compressor.compress(line) for _ in range(height if rows is None else rows))
    body += compressor.flush()
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", body) + chunk(b"IEND", b"")
    )


def png_bomb(width: int, height: int, depth: int, colour_type: int, row: bytes) -> bytes:
    """A real PNG of `height` identical rows, every byte of them there, written fast and small:
    64 rows compressed once, ending in a full flush (which resets the compressor), repeated."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        )

    def flushed(data: bytes) -> bytes:
        compressor = zlib.compressobj(9)
        return compressor.compress(data) + compressor.flush(zlib.Z_FULL_FLUSH)

    line = b"\x00" + row
    block, blocks, rest = line * 64, height // 64, line * (height % 64)
    checksum = 1
    for _ in range(blocks):
        checksum = zlib.adler32(block, checksum)
    checksum = zlib.adler32(rest, checksum)
    head = flushed(block)
    body = head[:2] + head[2:] * blocks + flushed(rest)[2:] + b"\x03\x00"
    body += struct.pack(">I", checksum)
    header = struct.pack(">IIBBBBB", width, height, depth, colour_type, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", body) + chunk(b"IEND", b"")
    )


def slow_rtf(size: int) -> bytes:
    paragraph = rb"{\b Visit} note: patient stable, BP 120/80, no change. Caf\'e9 \par "
    return rb"{\rtf1\ansi\deff0 " + paragraph * (size // len(paragraph)) + b"}"


def scanned_page() -> bytes:
    page = Image.new("L", (2480, 3508), 255)  # A4 at 300 dpi
    draw = ImageDraw.Draw(page)
    for line in range(80):
        draw.line((200, 200 + line * 40, 2200, 200 + line * 40), fill=0, width=3)
    out = io.BytesIO()
    page.save(out, "PDF", resolution=300)
    return out.getvalue()


def jpeg(width: int, height: int) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (width, height), (200, 30, 30)).save(out, "JPEG", quality=80)
    return out.getvalue()


async def run(memory: int, func: Callable[..., Any], *args: Any) -> tuple[Any, float]:
    """One job in a fresh pool of one worker limited to `memory` bytes: (answer, seconds)."""
    probe = __import__("bench.viewer_memory_bench", fromlist=["measured"]).measured
    pool = WorkerPool(1, 0, 120, preload=WORKER_MODULES, memory=memory)
    try:
        await pool.run(int, "0")  # the worker's start is not the job's
        started = time.perf_counter()
        try:
            answer = await pool.run(probe, func, *args)
        except WorkerOutOfMemory:
            answer = ("WorkerOutOfMemory", "-", "-", "-")
        seconds = time.perf_counter() - started
        after = await pool.run(int, "1") == 1  # the pool serves on
        return (*answer, "serves on" if after else "broken"), seconds
    finally:
        await pool.close()


async def main() -> None:
    limit = Settings.model_fields["conversion_memory_mb"].default * MB
    seconds = Settings.model_fields["preview_seconds"].default
    vips = Reducer(Settings.model_fields["vipsthumbnail"].default, seconds)
    print(f"BFF_CONVERSION_MEMORY_MB default: {limit // MB} MB of address space per worker")
    print(f"libvips: {vips.program() or 'not installed (its rows are refusals)'}")
    folder = Path(tempfile.mkdtemp(prefix="viewer-bench-"))
    files = {
        "pdf": scanned_page(),
        "png20": one_colour_png(5000, 4000),
        "jpg24": jpeg(6000, 4000),
        "png100": one_colour_png(10_000, 10_000),
        "bomb": one_colour_png(30_000, 30_000, rows=1),
        "bomb1": png_bomb(30_000, 30_000, 1, 0, b"\xff" * 3750),
        "bomb8": png_bomb(30_000, 30_000, 8, 0, b"\x80" * 30_000),
        "bombrgb": png_bomb(30_000, 30_000, 8, 2, b"\x30\x60\x90" * 30_000),
    }
    paths = {}
    for name, data in files.items():
        paths[name] = str(folder / name)
        await asyncio.to_thread(Path(paths[name]).write_bytes, data)
    profile = io.BytesIO()
    Image.new("RGB", (4000, 3000), (10, 20, 30)).save(profile, "PNG")
    jobs: list[tuple[str, int, Callable[..., Any], tuple[Any, ...]]] = [
        ("RTF of 20 MB to text", limit, convert_rtf, (slow_rtf(20 * MB),)),
        ("profile image, 12 MP PNG", limit, process_profile_image, (profile.getvalue(),)),
        ("PDF page (A4 300 dpi scan) at 2000 px", limit, pdf_page, (paths["pdf"], 1, 2000)),
        ("Pillow: reduced copy of a 20 MP PNG", limit, reduced_image, (paths["png20"],)),
        ("Pillow: reduced copy of a 24 MP JPEG", limit, reduced_image, (paths["jpg24"],)),
        ("Pillow: reduced copy of a 100 MP PNG", limit, reduced_image, (paths["png100"],)),
        ("Pillow: opening the 900 MP bomb", limit, image_display, (paths["bomb"],)),
        ("Pillow: 20 MP PNG, 256 MB", 256 * MB, reduced_image, (paths["png20"],)),
        ("Pillow: 100 MP PNG, 256 MB", 256 * MB, reduced_image, (paths["png100"],)),
        ("libvips: opening the 900 MP bomb", limit, image_display, (paths["bomb1"], vips)),
        ("libvips: 900 MP bomb, 1-bit", limit, reduced_image, (paths["bomb1"], vips)),
        ("libvips: 900 MP bomb, 8-bit grey", limit, reduced_image, (paths["bomb8"], vips)),
        ("libvips: 900 MP bomb, RGB", limit, reduced_image, (paths["bombrgb"], vips)),
        ("libvips: 20 MP PNG", limit, reduced_image, (paths["png20"], vips)),
        ("libvips: 24 MP JPEG", limit, reduced_image, (paths["jpg24"], vips)),
        ("libvips: 100 MP PNG", limit, reduced_image, (paths["png100"], vips)),
        ("libvips: 900 MP bomb, 1-bit, 256 MB", 256 * MB, reduced_image, (paths["bomb1"], vips)),
        ("libvips: 900 MP bomb, RGB, 256 MB", 256 * MB, reduced_image, (paths["bombrgb"], vips)),
        ("libvips: 900 MP bomb, RGB, 384 MB", 384 * MB, reduced_image, (paths["bombrgb"], vips)),
        ("libvips: 100 MP PNG, 256 MB", 256 * MB, reduced_image, (paths["png100"], vips)),
    ]
    print(
        f"{'job':38} {'outcome':>34} {'VmPeak MB':>10} {'VmHWM MB':>9} {'child MB':>9}"
        f" {'s':>6}  pool"
    )
    for label, memory, func, args in jobs:
        (outcome, peak, resident, child, pool), took = await run(memory, func, *args)
        print(
            f"{label:38} {outcome[:34]:>34} {peak:>10} {resident:>9} {child:>9} {took:6.2f}  {pool}"
        )
    for name, data in files.items():
        print(f"  {name}: {len(data):,} bytes")


if __name__ == "__main__":
    asyncio.run(main())
