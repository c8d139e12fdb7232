"""Every byte of an upload's body counts against the limit, through a real Hypercorn server:
a preamble before the first boundary, part headers and an epilogue after the last one, with
chunked encoding (no Content-Length) as well as with a Content-Length."""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
from collections.abc import Iterator
from pathlib import Path

import aiohttp
import pytest

from bff.files.multipart import FORM_OVERHEAD, FORM_TOO_LARGE
from tools.devserver import ServerProcess, local_env

ADMIN_PASSWORD = "body-limit-admin-pass"
BOUNDARY = "limit-boundary-3b7f"
MB = 1024 * 1024
TOO_LARGE = "The file is too large. The limit is 1MB."


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    root = tmp_path_factory.mktemp("body-limit")
    process = ServerProcess(local_env(root, admin_password=ADMIN_PASSWORD, max_upload_mb="1"))
    try:
        yield process
    finally:
        # Hypercorn keeps the connection of each refused upload open after the client closed
        # its side (CLOSE-WAIT), and a graceful stop waits its graceful_timeout (20 s) for them.
        # Stopping is not what these tests are about (tests/tools/test_entry_points.py is).
        process.stop(grace=1)


async def _folder(server: ServerProcess) -> tuple[str, str]:
    """An admin token and a patient folder of the calling test's own (container/folder)."""
    async with aiohttp.ClientSession() as session:
        async with session.post(
            f"{server.base}/api/auth/login", json={"username": "admin", "password": ADMIN_PASSWORD}
        ) as response:
            token = (await response.json())["token"]
        ward = f"limit-ward-{secrets.token_hex(4)}"
        for url, body in (
            ("/api/admin/containers", {"name": ward}),
            (f"/api/admin/containers/{ward}/folders", {"name": "patient-1"}),
        ):
            async with session.post(
                server.base + url, json=body, headers={"x-auth-token": token}
            ) as response:
                assert response.status == 201
    return token, f"{ward}/patient-1"


def _file_part(name: str, data: bytes, padding: str = "") -> bytes:
    extra = f"X-Padding: {padding}\r\n" if padding else ""
    return (
        f'\r\n--{BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="{name}"\r\n'
        f"Content-Type: application/octet-stream\r\n{extra}\r\n"
    ).encode() + data


def _form(
    name: str, data: bytes, *, preamble: bytes = b"", epilogue: bytes = b"", padding: str = ""
) -> list[bytes]:
    """A multipart body in pieces of at most 64KB: preamble, the file (its part's headers
    padded with a header of `padding`), epilogue."""
    body = (
        preamble + _file_part(name, data, padding) + f"\r\n--{BOUNDARY}--\r\n".encode() + epilogue
    )
    return [body[i : i + 64 * 1024] for i in range(0, len(body), 64 * 1024)]


class _Response(asyncio.Protocol):
    """Collects what the server sends; a refused body may break the connection mid-send."""

    def __init__(self) -> None:
        self.data = bytearray()
        self.closed = asyncio.Event()
        self.answered = asyncio.Event()
        self.can_write = asyncio.Event()
        self.can_write.set()

    def data_received(self, data: bytes) -> None:
        self.data += data
        if _complete(bytes(self.data)):
            self.answered.set()

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed.set()
        self.answered.set()
        self.can_write.set()

    def pause_writing(self) -> None:
        self.can_write.clear()

    def resume_writing(self) -> None:
        self.can_write.set()


def _complete(response: bytes) -> bool:
    """Whether response holds a whole answer with a Content-Length."""
    head, found, body = response.partition(b"\r\n\r\n")
    for line in head.lower().split(b"\r\n"):
        if found and line.startswith(b"content-length:"):
            return len(body) >= int(line.split(b":")[1])
    return False


async def _post(
    server: ServerProcess, token: str, folder: str, pieces: list[bytes], *, chunked: bool
) -> tuple[int, dict[str, str]]:
    """Send a raw upload request, stopping once the server answers; (status, JSON body).

    A server that refuses a body answers and closes while the client may still be writing; the
    kernel then resets the connection and may discard the answer before it is read (Hypercorn
    has no lingering close; nginx in front has). Such a try, with no answer at all, is made
    again, at most three times."""
    for _ in range(3):
        answer = await _post_once(server, token, folder, pieces, chunked=chunked)
        if answer is not None:
            return answer
    raise AssertionError("the connection was reset before any answer, three times")


async def _post_once(
    server: ServerProcess, token: str, folder: str, pieces: list[bytes], *, chunked: bool
) -> tuple[int, dict[str, str]] | None:
    framing = (
        "Transfer-Encoding: chunked"
        if chunked
        else f"Content-Length: {sum(len(piece) for piece in pieces)}"
    )
    head = (
        f"POST /api/blobs/{folder} HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n"
        f"x-auth-token: {token}\r\nConnection: close\r\n"
        f"Content-Type: multipart/form-data; boundary={BOUNDARY}\r\n{framing}\r\n\r\n"
    ).encode()
    loop = asyncio.get_running_loop()
    transport, response = await loop.create_connection(_Response, "127.0.0.1", server.port)
    transport.write(head)
    # A server may answer from the head alone (a Content-Length over the limit) and close: a
    # client that kept writing then would get a reset that discards the answer unread, so wait
    # a moment for an early answer first, and read between writes.
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(response.answered.wait(), 0.5)
    for piece in [*pieces, b""] if chunked else pieces:
        await response.can_write.wait()
        if response.closed.is_set() or response.data:
            break  # answered before the whole body was sent
        transport.write(b"%x\r\n%s\r\n" % (len(piece), piece) if chunked else piece)
        await asyncio.sleep(0)
    await asyncio.wait_for(response.answered.wait(), 60)
    transport.abort()
    if not response.data:
        return None
    head_bytes, _, body = bytes(response.data).partition(b"\r\n\r\n")
    status = int(head_bytes.split()[1])
    return status, json.loads(body)


async def _names(server: ServerProcess, token: str, folder: str) -> list[str]:
    async with (
        aiohttp.ClientSession() as session,
        session.get(f"{server.base}/api/blobs/{folder}", headers={"x-auth-token": token}) as r,
    ):
        assert r.status == 200
        return [blob["name"] for blob in (await r.json())["blobs"]]


def _storage_files(server: ServerProcess, folder: str) -> list[str]:
    path: Path = server.storage_path / folder
    return sorted(p.name for p in path.iterdir()) if path.exists() else []


@pytest.mark.parametrize("chunked", [True, False], ids=["chunked", "content-length"])
async def test_a_large_preamble_is_413_and_nothing_is_stored(
    server: ServerProcess, chunked: bool
) -> None:
    token, folder = await _folder(server)
    pieces = _form("after-preamble.txt", b"hello", preamble=b"p" * (5 * MB))
    status, body = await _post(server, token, folder, pieces, chunked=chunked)
    assert status == 413
    # With a Content-Length the declared size is refused before the body is read.
    assert body["message"] == (FORM_TOO_LARGE if chunked else TOO_LARGE)
    assert await _names(server, token, folder) == []
    assert _storage_files(server, folder) == []


async def test_a_preamble_longer_than_the_form_allowance_is_not_held(
    server: ServerProcess,
) -> None:
    """Within the upload limit, but more than FORM_OVERHEAD before the first boundary: refused
    rather than buffered."""
    token, folder = await _folder(server)
    pieces = _form("small.txt", b"hello", preamble=b"p" * (FORM_OVERHEAD * 3))
    status, body = await _post(server, token, folder, pieces, chunked=True)
    assert status == 413
    assert body["message"] == FORM_TOO_LARGE
    assert _storage_files(server, folder) == []


@pytest.mark.parametrize("chunked", [True, False], ids=["chunked", "content-length"])
@pytest.mark.parametrize("where", ["preamble", "part headers"])
async def test_just_over_64_kb_around_the_file_is_refused_as_the_docs_say(
    server: ServerProcess, where: str, chunked: bool
) -> None:
    """The review's replay: a 70,000-byte preamble (or part header) arrives whole with what
    follows it, so the decoder never waits for data while holding over 64 KB; it was stored.
    docs/api.md says more than 64 KB before the first boundary or in part headers is refused."""
    token, folder = await _folder(server)
    if where == "preamble":
        pieces = _form("small.txt", b"hello", preamble=b"p" * 70_000)
    else:
        pieces = _form("small.txt", b"hello", padding="h" * 70_000)
    status, body = await _post(server, token, folder, pieces, chunked=chunked)
    assert status == 413, body
    assert body["message"] == FORM_TOO_LARGE
    assert await _names(server, token, folder) == []
    assert _storage_files(server, folder) == []


async def test_a_preamble_of_exactly_64_kb_is_accepted(server: ServerProcess) -> None:
    token, folder = await _folder(server)
    pieces = _form("edge.txt", b"hello", preamble=b"p" * FORM_OVERHEAD)
    status, body = await _post(server, token, folder, pieces, chunked=True)
    assert status == 201, body
    assert await _names(server, token, folder) == ["edge.txt"]


async def test_a_large_epilogue_after_a_whole_file_is_413_and_nothing_is_stored(
    server: ServerProcess,
) -> None:
    token, folder = await _folder(server)
    pieces = _form("before-epilogue.txt", b"data" * 1000, epilogue=b"e" * (3 * MB))
    status, body = await _post(server, token, folder, pieces, chunked=True)
    assert status == 413
    assert body["message"] == FORM_TOO_LARGE
    assert await _names(server, token, folder) == []
    assert _storage_files(server, folder) == []


async def test_the_form_around_the_file_counts_with_the_file(server: ServerProcess) -> None:
    """A file exactly at the limit, with a preamble and an epilogue each within the allowance
    but together over it: the whole body is over limit + FORM_OVERHEAD."""
    token, folder = await _folder(server)
    around = b"x" * (FORM_OVERHEAD * 3 // 4)
    pieces = _form("at-limit.bin", b"f" * MB, preamble=around, epilogue=around)
    status, body = await _post(server, token, folder, pieces, chunked=True)
    assert status == 413
    assert body["message"] == TOO_LARGE
    assert await _names(server, token, folder) == []


async def test_a_chunked_file_at_the_limit_is_stored(server: ServerProcess) -> None:
    token, folder = await _folder(server)
    pieces = _form("at-limit.bin", b"f" * MB, preamble=b"a short preamble")
    status, body = await _post(server, token, folder, pieces, chunked=True)
    assert status == 201, body
    assert await _names(server, token, folder) == ["at-limit.bin"]
