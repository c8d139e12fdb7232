"""An intake PDF's pages worked on within the worker pool's limits (the hostile review of issue
51: split, turn and page counting loaded whole PDFs into the server's process): the server
copies the PDF to a private file a chunk at a time and the worker reads and writes files there,
so the server's own memory does not grow with the PDF; a PDF whose work needs more memory or
time than the pool gives a job is a 422 that says which, the item unchanged, and the server
serves on. Through the real app, database, storage, clamd and worker pool."""

from __future__ import annotations

import io
import os
import tracemalloc
import zlib
from pathlib import Path
from typing import Any

import pikepdf
import pytest

from bff.intake.models import IntakeItem, Status
from bff.intake.pages import PDF, page_count
from bff.intake.reshaping import TOO_MUCH_MEMORY, TOO_SLOW
from bff.services import app_services
from tests.helpers import error_message
from tests.intake.desk import (  # noqa: F401 - fixtures
    Desk,
    clamd_fixture,
    desk_fixture,
    open_desk,
    pdf,
)
from tests.intake.test_routing_safety import _router
from tools.testclamd import RunningClamd

MB = 1024 * 1024


def bomb_pdf(zeros: int = 20_000_000) -> bytes:
    """A 2-page PDF of 40 KB whose first page names (/Bomb, a key nothing reads) an array of
    `zeros` zeros kept compressed in an object stream: counting its pages reads nothing of it,
    but copying or saving the page makes qpdf parse the array, about 150 bytes a number (3 GB
    and half a minute for 20 million)."""
    out = bytearray(b"%PDF-1.5\n%\xe2\xe3\xcf\xd3\n")
    offsets: dict[int, int] = {}

    def obj(number: int, body: bytes) -> None:
        offsets[number] = len(out)
        out.extend(f"{number} 0 obj\n".encode() + body + b"\nendobj\n")

    obj(1, b"<< /Type /Catalog /Pages 2 0 R >>")
    obj(2, b"<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 >>")
    obj(3, b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Bomb 6 0 R >>")
    obj(4, b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>")
    header = b"6 0 "
    data = zlib.compress(header + b"[" + b"0 " * zeros + b"]", 9)
    obj(
        5,
        f"<< /Type /ObjStm /N 1 /First {len(header)} /Filter /FlateDecode /Length {len(data)} >>"
        "\nstream\n".encode()
        + data
        + b"\nendstream",
    )
    rows = bytearray()  # the cross-reference stream: W [1 4 2]
    for number in range(8):
        if number == 0:
            kind, field, index = 0, 0, 65535
        elif number == 6:
            kind, field, index = 2, 5, 0  # in object stream 5
        elif number == 7:
            kind, field, index = 1, len(out), 0
        else:
            kind, field, index = 1, offsets[number], 0
        rows += bytes([kind]) + field.to_bytes(4, "big") + index.to_bytes(2, "big")
    xref_at = len(out)
    out.extend(
        f"7 0 obj\n<< /Type /XRef /Size 8 /W [1 4 2] /Root 1 0 R /Length {len(rows)} >>\n"
        "stream\n".encode()
        + bytes(rows)
        + f"\nendstream\nendobj\nstartxref\n{xref_at}\n%%EOF\n".encode()
    )
    return bytes(out)


def many_pages_pdf(count: int = 12_000) -> bytes:
    """A PDF of `count` blank pages in 100 KB (its pages packed in object streams): counting its
    pages and looking for active content take a fraction of a second, but qpdf copies pages to
    a new PDF in time that grows faster than their number (a split of all but one of them takes
    several seconds)."""
    document = pikepdf.new()
    tree = document.Root.Pages
    kids = [
        document.make_indirect(
            pikepdf.Dictionary(Type=pikepdf.Name.Page, MediaBox=[0, 0, 612, 792], Parent=tree)
        )
        for _ in range(count)
    ]
    tree.Kids = pikepdf.Array(kids)
    tree.Count = count
    out = io.BytesIO()
    document.save(out, object_stream_mode=pikepdf.ObjectStreamMode.generate)
    return out.getvalue()


def heavy_pdf(pages: int, page_bytes: int) -> bytes:
    """A PDF whose pages each carry page_bytes of incompressible data (a stream under a key
    nothing reads): its size is its pages' data."""
    document = pikepdf.new()
    for _ in range(pages):
        document.add_blank_page()
        document.pages[-1].obj["/Data"] = pikepdf.Stream(document, os.urandom(page_bytes))
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def _pages(data: bytes) -> int:
    with pikepdf.open(io.BytesIO(data)) as document:
        return len(document.pages)


async def _split(desk: Desk, item_id: int, ranges: list[list[int]]) -> Any:
    return await desk.client.post(
        f"/api/intake/items/{item_id}/split", headers=desk.clerk.headers, json={"ranges": ranges}
    )


async def _turn(desk: Desk, item_id: int) -> Any:
    return await desk.client.post(
        f"/api/intake/items/{item_id}/rotate", headers=desk.clerk.headers, json={"degrees": 90}
    )


LIMITS = {  # the pool's limit, the PDF over it, how it is split, whether it is turned too
    "memory": ({"conversion_memory_mb": 256}, bomb_pdf, [[1, 1], [2, 2]], TOO_MUCH_MEMORY),
    "time": ({"conversion_seconds": 3}, many_pages_pdf, [[1, 11_999], [12_000, 12_000]], TOO_SLOW),
}


def _work_folders(run_dir: Path) -> set[Path]:
    """This process's private work folders in var/jobs/ (bff/intake/workspace.py)."""
    jobs = run_dir / "jobs"
    return (
        {p for p in jobs.iterdir() if p.name.startswith(f"{os.getpid()}-")}
        if jobs.exists()
        else set()
    )


@pytest.mark.parametrize("limit", LIMITS)
async def test_a_pdf_over_the_pools_limit_is_a_422_and_the_server_serves_on(
    database_url: str, run_dir: Path, tmp_path: Path, clamd: RunningClamd, limit: str
) -> None:
    overrides, made, ranges, message = LIMITS[limit]
    earlier = _work_folders(run_dir)  # another test's leftovers are that test's to answer for
    async with open_desk(database_url, run_dir, tmp_path, clamd.address, **overrides) as desk:
        await _router(desk).stop()  # the pages worked on here only
        heavy, letter = await desk.batch(desk.clerk, [("heavy.pdf", made()), ("l.pdf", pdf(3))])
        assert heavy["item"], heavy
        heavy_id = heavy["item"]["id"]
        assert heavy["item"]["pages"] == ranges[-1][-1]  # counted in time, within the memory
        before = await IntakeItem.get(id=heavy_id)

        split = await _split(desk, heavy_id, ranges)
        assert await error_message(split, 422) == message.format(verb="split")
        if limit == "memory":  # turning reads the whole PDF as well
            turn = await _turn(desk, heavy_id)
            assert await error_message(turn, 422) == message.format(verb="turn")
        after = await IntakeItem.get(id=heavy_id)
        assert (after.status, after.object_id) == (Status.NEW, before.object_id)
        assert await IntakeItem.all().count() == 2  # no part of the split that did not happen
        assert app_services(desk.app).workers.running_pids == set()

        # The server serves on: the next PDF is split and turned in a new worker.
        letter_id = letter["item"]["id"]
        assert (await _turn(desk, letter_id)).status_code == 200
        done = await _split(desk, letter_id, [[1, 1], [2, 3]])
        assert done.status_code == 200, await done.get_data(as_text=True)
        assert [part["pages"] for part in (await done.get_json())["items"]] == [1, 2]
    assert not _work_folders(run_dir) - earlier


async def test_splitting_and_turning_a_large_pdf_does_not_hold_it_in_the_server(
    desk: Desk,
) -> None:
    """A 24 MB PDF split in two and turned: the server's own allocations at their peak stay
    under a quarter of it (chunks pass through; the PDF was read whole into the server's memory
    before, then pickled to the worker, and the parts came back whole: three times its size)."""
    await _router(desk).stop()
    data = heavy_pdf(6, 4 * MB)
    [result] = await desk.batch(desk.clerk, [("heavy.pdf", data)])
    item_id = result["item"]["id"]
    assert result["item"]["pages"] == 6
    tracemalloc.start()
    try:
        turned = await _turn(desk, item_id)
        assert turned.status_code == 200, await turned.get_data(as_text=True)
        _, turn_peak = tracemalloc.get_traced_memory()
        tracemalloc.reset_peak()
        split = await _split(desk, item_id, [[1, 3], [4, 6]])
        assert split.status_code == 200, await split.get_data(as_text=True)
        _, split_peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert turn_peak < len(data) / 4, turn_peak
    assert split_peak < len(data) / 4, split_peak
    parts = (await split.get_json())["items"]
    assert [part["pages"] for part in parts] == [3, 3]


async def test_counting_a_large_pdfs_pages_does_not_hold_it_in_the_server(desk: Desk) -> None:
    data = heavy_pdf(6, 4 * MB)

    async def chunks() -> Any:
        for start in range(0, len(data), MB):
            yield data[start : start + MB]

    key = "count-" + os.urandom(8).hex()
    await desk.storage.write_staged(key, chunks(), content_type=PDF)
    try:
        async with desk.app.app_context():
            tracemalloc.start()
            try:
                assert await page_count(desk.storage, key, PDF) == 6
                _, peak = tracemalloc.get_traced_memory()
            finally:
                tracemalloc.stop()
    finally:
        await desk.storage.delete_staged(key)
    assert peak < len(data) / 4, peak
