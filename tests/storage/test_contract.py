"""The storage contract: every test runs against local disk and against S3."""

from __future__ import annotations

import asyncio
import hashlib
import os
import tracemalloc
from collections.abc import AsyncIterator, Iterable
from datetime import UTC, datetime, timedelta

import pytest

from storage import InvalidName, NotFound, Storage
from storage.base import ObjectKey
from tests.storage.backends import Backend

MiB = 1024 * 1024

# An unclosed response or an aiohttp warning about a blocking body is a bug here.
pytestmark = pytest.mark.filterwarnings("error::ResourceWarning")


async def stream(*chunks: bytes) -> AsyncIterator[bytes]:
    """An async byte stream of the given chunks."""
    for chunk in chunks:
        await asyncio.sleep(0)
        yield chunk


class DroppedUpload(Exception):
    """What a client disconnecting mid-upload looks like to the writer."""


async def failing(chunks: Iterable[bytes]) -> AsyncIterator[bytes]:
    """Yield chunks, then fail the way a dropped connection would."""
    for chunk in chunks:
        yield chunk
    raise DroppedUpload


async def read(storage: Storage, name: str) -> bytes:
    """The whole of a small file in clinic/patient-1."""
    async with await storage.open("clinic", "patient-1", name) as body:
        return await body.read_all()


def data(size: int) -> bytes:
    return bytes(i % 251 for i in range(size))


async def test_round_trip(backend: Backend) -> None:
    storage = backend.storage
    payload = data(200_000)
    size = await storage.write(
        "clinic", "patient-1", "notes.txt", stream(payload[:70_000], payload[70_000:])
    )
    assert size == len(payload)
    assert await read(storage, "notes.txt") == payload


async def test_reads_in_chunks_of_at_most_chunk_size(backend: Backend) -> None:
    payload = data(10_000)
    await backend.storage.write("clinic", "patient-1", "a.bin", stream(payload))
    chunks = [
        chunk
        async for chunk in await backend.storage.open(
            "clinic", "patient-1", "a.bin", chunk_size=1000
        )
    ]
    assert all(0 < len(chunk) <= 1000 for chunk in chunks)
    assert b"".join(chunks) == payload


SIZE = 100_000


@pytest.mark.parametrize(
    ("offset", "length", "expected"),
    [
        (0, 10, slice(0, 10)),  # start
        (40_000, 5_000, slice(40_000, 45_000)),  # middle
        (SIZE - 100, None, slice(SIZE - 100, SIZE)),  # to the end
        (SIZE - 10, 1_000, slice(SIZE - 10, SIZE)),  # runs past the end: clamped
        (SIZE, None, slice(0, 0)),  # starts at the end
        (SIZE + 500, 10, slice(0, 0)),  # starts beyond the end
        (123, 0, slice(0, 0)),  # empty range
        (0, None, slice(0, SIZE)),  # everything
    ],
)
async def test_range_reads(
    backend: Backend, offset: int, length: int | None, expected: slice
) -> None:
    payload = data(SIZE)
    await backend.storage.write("clinic", "patient-1", "scan.pdf", stream(payload))
    body = await backend.storage.open(
        "clinic", "patient-1", "scan.pdf", offset=offset, length=length
    )
    async with body:
        assert body.size == SIZE
        assert body.length == len(payload[expected])
        assert body.content_type == "application/pdf"
        assert await body.read_all() == payload[expected]


async def test_negative_range_is_refused(backend: Backend) -> None:
    await backend.storage.write("clinic", "patient-1", "a.txt", stream(b"abc"))
    with pytest.raises(ValueError):
        await backend.storage.open("clinic", "patient-1", "a.txt", offset=-1)
    with pytest.raises(ValueError):
        await backend.storage.open("clinic", "patient-1", "a.txt", length=-5)


async def test_stat(backend: Backend) -> None:
    before = datetime.now(UTC) - timedelta(seconds=5)
    await backend.storage.write("clinic", "patient-1", "notes.txt", stream(b"x" * 1234))
    await backend.storage.write("clinic", "patient-1", "blob.zzqq", stream(b"y"))
    info = await backend.storage.stat("clinic", "patient-1", "notes.txt")
    assert (info.name, info.size, info.content_type) == ("notes.txt", 1234, "text/plain")
    assert before <= info.last_modified <= datetime.now(UTC) + timedelta(seconds=5)
    unknown = await backend.storage.stat("clinic", "patient-1", "blob.zzqq")
    assert (unknown.size, unknown.content_type) == (1, None)


async def test_empty_file(backend: Backend) -> None:
    assert await backend.storage.write("clinic", "patient-1", "empty.txt", stream()) == 0
    assert (await backend.storage.stat("clinic", "patient-1", "empty.txt")).size == 0
    assert await read(backend.storage, "empty.txt") == b""


async def test_list_sorted_skipping_temp_files_and_markers(backend: Backend) -> None:
    storage = backend.storage
    names = ["b.txt", "a.txt", "Z.txt", "patient-10.txt", "patient-2.txt", "100% done.txt"]
    for name in names:
        await storage.write("clinic", "patient-1", name, stream(name.encode()))
    await storage.write("clinic", "patient-2", "x.txt", stream(b"x"))
    await storage.write("archive", "patient-9", "y.txt", stream(b"y"))
    await storage.create_folder("clinic", "empty-folder")
    await storage.create_container("empty-container")
    await backend.plant_temp("clinic", "patient-1")

    files = await storage.list_files("clinic", "patient-1")
    assert [info.name for info in files] == sorted(names)
    assert {info.name: info.size for info in files} == {name: len(name.encode()) for name in names}
    assert all(info.content_type == "text/plain" for info in files)
    assert await storage.list_containers() == ["archive", "clinic", "empty-container"]
    assert await storage.list_folders("clinic") == ["empty-folder", "patient-1", "patient-2"]
    assert await storage.list_folders("empty-container") == []
    assert await storage.list_files("clinic", "empty-folder") == []


async def test_list_unknown_is_empty(backend: Backend) -> None:
    assert await backend.storage.list_containers() == []
    assert await backend.storage.list_folders("nowhere") == []
    assert await backend.storage.list_files("nowhere", "nobody") == []


async def test_create_is_idempotent(backend: Backend) -> None:
    storage = backend.storage
    for _ in range(2):
        await storage.create_container("clinic")
        await storage.create_folder("clinic", "patient-1")
    assert await storage.list_containers() == ["clinic"]
    assert await storage.list_folders("clinic") == ["patient-1"]


async def test_delete_and_exists(backend: Backend) -> None:
    storage = backend.storage
    await storage.write("clinic", "patient-1", "a.txt", stream(b"a"))
    await storage.write("clinic", "patient-1", "b.txt", stream(b"b"))
    assert await storage.exists("clinic", "patient-1", "a.txt")
    await storage.delete("clinic", "patient-1", "a.txt")
    assert not await storage.exists("clinic", "patient-1", "a.txt")
    assert [info.name for info in await storage.list_files("clinic", "patient-1")] == ["b.txt"]
    with pytest.raises(NotFound):
        await storage.delete("clinic", "patient-1", "a.txt")
    await storage.delete("clinic", "patient-1", "b.txt")
    assert await storage.list_folders("clinic") == ["patient-1"]  # the emptied folder stays
    assert await backend.everything() == []


async def test_missing_file(backend: Backend) -> None:
    storage = backend.storage
    await storage.create_folder("clinic", "patient-1")
    assert not await storage.exists("clinic", "patient-1", "missing.txt")
    with pytest.raises(NotFound):
        await storage.stat("clinic", "patient-1", "missing.txt")
    with pytest.raises(NotFound):  # at open, before the first chunk is asked for
        await storage.open("clinic", "patient-1", "missing.txt")
    with pytest.raises(NotFound):
        await storage.open("clinic", "patient-1", "missing.txt", offset=10, length=0)
    with pytest.raises(NotFound):
        await storage.delete("clinic", "patient-1", "missing.txt")
    with pytest.raises(NotFound):
        await storage.stat("nowhere", "nobody", "missing.txt")


INVALID_NAMES = [
    pytest.param("", id="empty"),
    pytest.param(".", id="dot"),
    pytest.param("..", id="dotdot"),
    pytest.param("a/b", id="slash"),
    pytest.param("../etc", id="parent-slash"),
    pytest.param("/abs", id="absolute"),
    pytest.param("a\\b", id="backslash"),
    pytest.param("..%2F", id="encoded-slash"),
    pytest.param("..%2f..%2fetc", id="encoded-slash-lower"),
    pytest.param("%2e%2e", id="encoded-dotdot"),
    pytest.param("..%252F", id="double-encoded-slash"),
    pytest.param("a%5Cb", id="encoded-backslash"),
    pytest.param("a\x00b", id="nul"),
    pytest.param("a%00b", id="encoded-nul"),
    pytest.param("a\nb", id="newline"),
    pytest.param("a\x7fb", id="del"),
    pytest.param("x" * 256, id="256-bytes"),
    pytest.param("é" * 128, id="256-utf8-bytes"),
    pytest.param(".upload-1234.part", id="reserved-temp-name"),
]


@pytest.mark.parametrize("bad", INVALID_NAMES)
async def test_invalid_names_are_refused_everywhere(backend: Backend, bad: str) -> None:
    storage = backend.storage
    await storage.write("clinic", "patient-1", "ok.txt", stream(b"ok"))
    for container, folder, name in [
        ("clinic", "patient-1", bad),
        ("clinic", bad, "ok.txt"),
        (bad, "patient-1", "ok.txt"),
    ]:
        with pytest.raises(InvalidName):
            await storage.write(container, folder, name, stream(b"evil"))
        with pytest.raises(InvalidName):
            await storage.open(container, folder, name)
        with pytest.raises(InvalidName):
            await storage.stat(container, folder, name)
        with pytest.raises(InvalidName):
            await storage.exists(container, folder, name)
        with pytest.raises(InvalidName):
            await storage.delete(container, folder, name)
    for container, folder in [("clinic", bad), (bad, "patient-1")]:
        with pytest.raises(InvalidName):
            await storage.list_files(container, folder)
        with pytest.raises(InvalidName):
            await storage.create_folder(container, folder)
    with pytest.raises(InvalidName):
        await storage.list_folders(bad)
    with pytest.raises(InvalidName):
        await storage.create_container(bad)
    assert await backend.everything() == ["clinic/patient-1/ok.txt"]
    assert await storage.list_containers() == ["clinic"]
    assert await storage.list_folders("clinic") == ["patient-1"]


@pytest.mark.parametrize("good", ["x" * 255, "é" * 127 + "x", "100% sure.txt", "..hidden", "a b"])
async def test_borderline_valid_names(backend: Backend, good: str) -> None:
    await backend.storage.write("clinic", "patient-1", good, stream(b"fine"))
    assert await read(backend.storage, good) == b"fine"
    assert [info.name for info in await backend.storage.list_files("clinic", "patient-1")] == [good]


async def test_failed_write_leaves_nothing(backend: Backend) -> None:
    before = await backend.everything()
    with pytest.raises(DroppedUpload):
        await backend.storage.write("clinic", "patient-1", "x.pdf", failing([b"a" * 70_000] * 3))
    assert not await backend.storage.exists("clinic", "patient-1", "x.pdf")
    assert await backend.storage.list_files("clinic", "patient-1") == []
    assert await backend.everything() == before


async def test_failed_multipart_write_leaves_nothing(backend: Backend) -> None:
    # Past one S3 part (5 MiB in these tests), so the S3 backend has begun a multipart upload.
    with pytest.raises(DroppedUpload):
        await backend.storage.write("clinic", "patient-1", "big.bin", failing([b"b" * MiB] * 7))
    assert not await backend.storage.exists("clinic", "patient-1", "big.bin")
    assert await backend.everything() == []


async def test_failed_overwrite_keeps_previous_content(backend: Backend) -> None:
    storage = backend.storage
    await storage.write("clinic", "patient-1", "x.txt", stream(b"original"))
    with pytest.raises(DroppedUpload):
        await storage.write("clinic", "patient-1", "x.txt", failing([b"new" * 1000]))
    assert await read(storage, "x.txt") == b"original"
    assert await backend.everything() == ["clinic/patient-1/x.txt"]


async def test_cancelled_write_leaves_nothing(backend: Backend) -> None:
    started = asyncio.Event()

    async def stalls() -> AsyncIterator[bytes]:
        yield b"c" * 6 * MiB
        started.set()
        await asyncio.Event().wait()  # the client stops sending
        yield b"never"

    task = asyncio.create_task(backend.storage.write("clinic", "patient-1", "c.bin", stalls()))
    await asyncio.wait_for(started.wait(), 30)
    await asyncio.sleep(0.2)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert not await backend.storage.exists("clinic", "patient-1", "c.bin")
    assert await backend.everything() == []


async def test_write_refuses_non_bytes(backend: Backend) -> None:
    async def text() -> AsyncIterator[bytes]:
        yield b"ok"
        yield "not bytes"  # type: ignore[misc]

    with pytest.raises(TypeError):
        await backend.storage.write("clinic", "patient-1", "t.txt", text())
    assert await backend.everything() == []


async def test_overwrite_replaces_whole_content(backend: Backend) -> None:
    storage = backend.storage
    await storage.write("clinic", "patient-1", "x.txt", stream(b"long content " * 1000))
    size = await storage.write("clinic", "patient-1", "x.txt", stream(b"short"))
    assert size == 5
    assert await read(storage, "x.txt") == b"short"
    assert (await storage.stat("clinic", "patient-1", "x.txt")).size == 5


async def test_abandoned_read_can_be_closed(backend: Backend) -> None:
    await backend.storage.write("clinic", "patient-1", "x.bin", stream(data(300_000)))
    body = await backend.storage.open("clinic", "patient-1", "x.bin", chunk_size=1000)
    assert len(await body.__anext__()) <= 1000
    await body.aclose()
    await body.aclose()  # twice is harmless
    assert [chunk async for chunk in body] == []


STREAM_SIZE = 50 * MiB
MEMORY_LIMIT = 20 * MiB


async def test_streams_50_mb_in_bounded_memory(backend: Backend) -> None:
    """A 50 MB write and read never hold the file in memory (tracemalloc peak < 20 MB)."""
    written = hashlib.sha256()

    async def generate() -> AsyncIterator[bytes]:
        for _ in range(STREAM_SIZE // (64 * 1024)):
            chunk = os.urandom(64 * 1024)
            written.update(chunk)
            yield chunk

    storage = backend.storage
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        size = await storage.write("clinic", "patient-1", "video.mp4", generate())
        write_peak = tracemalloc.get_traced_memory()[1]

        tracemalloc.reset_peak()
        read_back = hashlib.sha256()
        total = 0
        async with await storage.open("clinic", "patient-1", "video.mp4") as body:
            async for chunk in body:
                total += len(chunk)
                read_back.update(chunk)
        read_peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()

    peaks = f"write peak {write_peak / MiB:.1f} MiB, read peak {read_peak / MiB:.1f} MiB"
    print(f"\n{backend.kind}: 50 MiB streamed, {peaks}")
    assert size == total == STREAM_SIZE
    assert read_back.digest() == written.digest()
    assert write_peak < MEMORY_LIMIT, f"write peak {write_peak / MiB:.1f} MiB"
    assert read_peak < MEMORY_LIMIT, f"read peak {read_peak / MiB:.1f} MiB"


# The staging area: uploads are written there first and moved to their name on commit.


async def test_staged_object_is_invisible_until_published(backend: Backend) -> None:
    storage = backend.storage
    await storage.create_folder("clinic", "patient-1")
    payload = data(300_000)
    size = await storage.write_staged("k-1", stream(payload), content_type="application/pdf")
    assert size == len(payload)
    assert (await storage.stat_staged("k-1")).size == len(payload)
    assert [info.name for info in await storage.list_staged()] == ["k-1"]
    # Read back before it is let in (screening's look at a ZIP's directory, a PDF's pages).
    async with await storage.open_staged("k-1") as whole:
        assert b"".join([chunk async for chunk in whole]) == payload
    async with await storage.open_staged("k-1", offset=299_990, length=100) as tail:
        assert b"".join([chunk async for chunk in tail]) == payload[299_990:]
    with pytest.raises(NotFound):
        await storage.open_staged("k-none")
    # Nowhere in the listings a reindex walks.
    assert await storage.list_containers() == ["clinic"]
    assert await storage.list_files("clinic", "patient-1") == []
    await storage.publish_staged("k-1", "clinic", "patient-1", "scan.pdf")
    assert await read(storage, "scan.pdf") == payload
    assert (await storage.stat("clinic", "patient-1", "scan.pdf")).content_type == "application/pdf"
    assert await storage.list_staged() == []
    assert not await storage.delete_staged("k-1")
    with pytest.raises(NotFound):
        await storage.publish_staged("k-1", "clinic", "patient-1", "scan.pdf")


async def test_publish_replaces_and_delete_staged_removes(backend: Backend) -> None:
    storage = backend.storage
    await storage.write("clinic", "patient-1", "a.txt", stream(b"old"))
    await storage.write_staged("k-2", stream(b"new"))
    await storage.publish_staged("k-2", "clinic", "patient-1", "a.txt")
    assert await read(storage, "a.txt") == b"new"
    await storage.write_staged("k-3", stream(b"never"))
    assert await storage.delete_staged("k-3")
    assert await backend.everything() == ["clinic/patient-1/a.txt"]


async def test_keep_staged_moves_to_a_reserved_key_only(backend: Backend) -> None:
    """A quarantined upload's bytes (bff/scan/): moved out of staging to the product's own key,
    never to a name a person gave; nothing listed."""
    storage = backend.storage
    await storage.create_folder("clinic", "patient-1")
    await storage.write_staged("k-6", stream(b"infected"))
    with pytest.raises(InvalidName):
        await storage.keep_staged("k-6", ObjectKey.file("clinic", "patient-1", "a.txt"))
    kept = ObjectKey.folder("clinic", "patient-1").child(".bff-quarantine", "q-1")
    await storage.keep_staged("k-6", kept)
    async with await storage.open_object(kept) as stored:
        assert b"".join([chunk async for chunk in stored]) == b"infected"
    assert await storage.list_staged() == []
    assert await storage.list_files("clinic", "patient-1") == []
    with pytest.raises(NotFound):
        await storage.keep_staged("k-6", kept)


async def test_staging_names_are_reserved(backend: Backend) -> None:
    storage = backend.storage
    for bad in ("../x", "UPPER", "", "a/b"):
        with pytest.raises(InvalidName):
            await storage.write_staged(bad, stream(b"x"))
    with pytest.raises(InvalidName):
        await storage.write(".bff-staging", "patient-1", "a.txt", stream(b"x"))
    with pytest.raises(InvalidName):
        await storage.write("clinic", "patient-1", ".bff-staging", stream(b"x"))
    for reserved in (".bff-versions", ".bff-trash", ".bff-audit", ".bff-anything-new"):
        with pytest.raises(InvalidName):
            await storage.write("clinic", reserved, "a.txt", stream(b"x"))
        with pytest.raises(InvalidName):
            await storage.write("clinic", "patient-1", reserved, stream(b"x"))


async def test_failed_staged_write_leaves_nothing(backend: Backend) -> None:
    storage = backend.storage
    with pytest.raises(DroppedUpload):
        await storage.write_staged("k-4", failing([data(6 * MiB), data(100)]))
    assert await backend.everything() == []
    assert await storage.list_staged() == []


async def test_publish_copies_in_parts_past_the_copy_limit(backend: Backend) -> None:
    if backend.kind != "s3":
        pytest.skip("only S3 copies (local disk renames)")
    storage = backend.storage
    storage.copy_limit = MiB  # type: ignore[attr-defined]  # stands in for S3's 5 GiB
    payload = data(11 * MiB + 7)
    await storage.write_staged("k-5", stream(payload), content_type="application/pdf")
    await storage.publish_staged("k-5", "clinic", "patient-1", "big.pdf")
    assert (
        hashlib.sha256(await read(storage, "big.pdf")).digest() == hashlib.sha256(payload).digest()
    )
    assert (await storage.stat("clinic", "patient-1", "big.pdf")).content_type == "application/pdf"
    assert await backend.everything() == ["clinic/patient-1/big.pdf"]


async def walked(storage: Storage, prefix: str = "") -> dict[str, int]:
    """Every object key under prefix (its text form) with its size."""
    under = ObjectKey.parse(prefix) if prefix else None
    return {info.name: info.size async for info in storage.walk(under)}


async def test_walk_lists_every_object_but_staging_temp_files_and_markers(
    backend: Backend,
) -> None:
    storage = backend.storage
    await storage.write("clinic", "patient-1", "a.txt", stream(b"aa"))
    await storage.write("clinic", "patient-2", "b.pdf", stream(b"bbb"))
    await storage.create_folder("clinic", "empty")
    await storage.write_object(ObjectKey.parse(".bff-audit/checkpoints/1.json"), stream(b"{}"))
    kept = ObjectKey.parse("clinic/patient-1/.bff-versions/a.txt/v1")
    await storage.write_object(kept, stream(b"old"))
    await storage.write_staged("k1", stream(b"staged"))
    assert await walked(storage) == {
        "clinic/patient-1/a.txt": 2,
        "clinic/patient-2/b.pdf": 3,
        ".bff-audit/checkpoints/1.json": 2,
        "clinic/patient-1/.bff-versions/a.txt/v1": 3,
    }
    assert await walked(storage, "clinic/patient-1") == {
        "clinic/patient-1/a.txt": 2,
        "clinic/patient-1/.bff-versions/a.txt/v1": 3,
    }
    assert await walked(storage, ".bff-audit") == {".bff-audit/checkpoints/1.json": 2}
    assert await walked(storage, "nowhere") == {}
    # The product's own objects never show in a folder's listing.
    assert [f.name for f in await storage.list_files("clinic", "patient-1")] == ["a.txt"]


async def test_objects_round_trip_by_key(backend: Backend) -> None:
    storage = backend.storage
    payload = data(300_000)
    key = ObjectKey.parse("clinic/patient-1/.bff-trash/x.pdf/1")
    assert await storage.write_object(key, stream(payload[:1000], payload[1000:])) == len(payload)
    info = await storage.stat_object(key)
    assert (info.name, info.size, info.content_type) == (key.path, len(payload), None)
    async with await storage.open_object(key, offset=10, length=5) as body:
        assert await body.read_all() == payload[10:15]
    # An object written by key under a person's names is an ordinary file.
    await storage.write_object(ObjectKey.file("clinic", "patient-1", "plain.txt"), stream(b"hi"))
    assert await read(storage, "plain.txt") == b"hi"
    assert await storage.delete_object(key) is True
    assert await storage.delete_object(key) is False
    with pytest.raises(NotFound):
        await storage.open_object(key)
    with pytest.raises(NotFound):
        await storage.stat_object(key)


@pytest.mark.parametrize(
    "bad", ["", "a//b", "../x", "a/../b", "a/%2e%2e/b", ".bff-staging/k1", "a/.upload-x.part"]
)
def test_object_keys_are_validated(bad: str) -> None:
    """No key can name such an object, so no backend is ever handed one."""
    with pytest.raises(InvalidName):
        ObjectKey.parse(bad)
    with pytest.raises(InvalidName):
        ObjectKey(tuple(bad.split("/")))


async def test_failed_object_write_leaves_nothing(backend: Backend) -> None:
    storage = backend.storage
    with pytest.raises(DroppedUpload):
        await storage.write_object(ObjectKey.parse(".bff-audit/x"), failing([b"partial"]))
    assert await walked(storage) == {}


async def test_object_keys_copy_walk_and_delete_trees(backend: Backend) -> None:
    """Versions and the trash: product-named keys beside a folder's files, never listed."""
    storage = backend.storage
    await storage.write("clinic", "patient-1", "a.txt", stream(b"old"))
    where = ObjectKey.folder("clinic", "patient-1")
    kept = where.child(".bff-versions", "a.txt", "v1")
    await storage.copy_object(where.child("a.txt"), kept)
    # Replacing the file leaves the copy as it was (local disk links: never written in place).
    await storage.write("clinic", "patient-1", "a.txt", stream(b"new content"))
    async with await storage.open_object(kept, offset=1) as body:
        assert await body.read_all() == b"ld"
    assert (await storage.stat_object(kept)).size == 3
    await storage.copy_object(kept, where.child(".bff-trash", "t1", "a.txt"))
    assert [i.name for i in await storage.list_files("clinic", "patient-1")] == ["a.txt"]
    assert await storage.list_folders("clinic") == ["patient-1"]
    trash = where.child(".bff-trash")
    assert [i.name async for i in storage.walk(trash)] == ["clinic/patient-1/.bff-trash/t1/a.txt"]
    assert await storage.delete_tree(trash) == 1
    assert [i.name async for i in storage.walk(trash)] == []
    assert await storage.delete_object(kept) is True
    assert await storage.delete_object(kept) is False
    with pytest.raises(NotFound):
        await storage.copy_object(kept, where.child("b.txt"))
    with pytest.raises(InvalidName):
        ObjectKey(())
    for bad in (("..", "x"), (".bff-versions", "a/b")):
        with pytest.raises(InvalidName):
            where.child(*bad)


# S3 answers a listing request with at most 1,000 keys (list_objects_v2's page; moto's too):
# a listing that read one page would miss what follows, and `storage reindex` (which lists each
# folder's files) would then drop the rows of files that exist. Writing the objects costs about
# 12 s on moto here (80 a second), so one folder is filled, not also 1,001 folders.
S3_PAGE = 1000


async def test_a_folder_of_more_than_one_page_of_s3_is_listed_whole(backend: Backend) -> None:
    storage = backend.storage
    files = {f"clinic/many/scan-{n:04d}.pdf": n % 7 + 1 for n in range(S3_PAGE + 1)}
    keys = list(files)
    for start in range(0, len(keys), 50):  # at most 50 requests at once
        await asyncio.gather(
            *(
                storage.write_object(ObjectKey.parse(key), stream(b"x" * files[key]))
                for key in keys[start : start + 50]
            )
        )
    listed = await storage.list_files("clinic", "many")
    assert {f"clinic/many/{info.name}": info.size for info in listed} == files
    assert await walked(storage, "clinic") == files
