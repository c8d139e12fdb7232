"""Uploads through a real Hypercorn server: a 50MB file streams without being held in memory,
and a connection dropped mid-upload leaves nothing behind."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import secrets
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from storage.base import STAGING_DIR
from tools.devserver import ServerProcess, local_env

ADMIN_PASSWORD = "live-server-admin-pass"
BOUNDARY = "live-boundary-1d8a"
MB = 1024 * 1024


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    root = tmp_path_factory.mktemp("live")
    server = ServerProcess(local_env(root, admin_password=ADMIN_PASSWORD))
    try:
        yield server
    finally:
        server.stop()


async def _signed_in(
    session: aiohttp.ClientSession, live: ServerProcess
) -> tuple[dict[str, str], str]:
    """An admin's headers and a patient folder of the calling test's own (its URL path under
    /api/blobs and under the storage root: `ward-.../patient-1`)."""
    async with session.post(
        f"{live.base}/api/auth/login", json={"username": "admin", "password": ADMIN_PASSWORD}
    ) as response:
        assert response.status == 200
        token = (await response.json())["token"]
    headers = {"x-auth-token": token}
    ward = f"live-ward-{secrets.token_hex(4)}"
    for url, body in (
        ("/api/admin/containers", {"name": ward}),
        (f"/api/admin/containers/{ward}/folders", {"name": "patient-1"}),
    ):
        async with session.post(live.base + url, json=body, headers=headers) as response:
            assert response.status == 201
    return headers, f"{ward}/patient-1"


def _form_head(name: str) -> bytes:
    return (
        f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="filename"\r\n\r\n{name}\r\n'
        f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="{name}"\r\n'
        "Content-Type: application/octet-stream\r\n\r\n"
    ).encode()


FORM_TAIL = f"\r\n--{BOUNDARY}--\r\n".encode()


def _block(index: int) -> bytes:
    return hashlib.sha256(str(index).encode()).digest() * (MB // 32)


async def _body(name: str, megabytes: int) -> AsyncIterator[bytes]:
    yield _form_head(name)
    for index in range(megabytes):
        yield _block(index)
    yield FORM_TAIL


async def _upload(
    session: aiohttp.ClientSession,
    live: ServerProcess,
    headers: dict[str, str],
    folder: str,
    name: str,
    mb: int,
) -> Any:
    length = len(_form_head(name)) + mb * MB + len(FORM_TAIL)
    async with session.post(
        f"{live.base}/api/blobs/{folder}",
        data=_body(name, mb),
        headers={
            **headers,
            "Content-Type": f"multipart/form-data; boundary={BOUNDARY}",
            "Content-Length": str(length),
        },
    ) as response:
        return response.status, await response.json()


async def test_a_50mb_upload_is_streamed_not_held_in_memory(live: ServerProcess) -> None:
    async with aiohttp.ClientSession() as session:
        headers, folder = await _signed_in(session, live)
        status, _ = await _upload(session, live, headers, folder, "warm-up.bin", 1)
        assert status == 201
        live.reset_peak()
        before = live.memory("VmRSS")
        status, body = await _upload(session, live, headers, folder, "scan-50mb.bin", 50)
        assert status == 201, body
        growth = live.memory("VmHWM") - before
        print(f"server peak memory growth during a 50MB upload: {growth / MB:.1f} MB")
        assert growth < 20 * MB, f"the server grew by {growth / MB:.1f} MB for a 50MB upload"
        assert body["blob"]["contentLength"] == 50 * MB
        # The stored file is whole: stream it back through a signed link and compare.
        url = f"{live.base}/api/blobs/{folder}/scan-50mb.bin/url"
        async with session.get(url, headers=headers) as response:
            link = (await response.json())["url"]
        expected, actual = hashlib.sha256(), hashlib.sha256()
        for index in range(50):
            expected.update(_block(index))
        async with session.get(live.base + link) as response:
            assert response.status == 200
            async for chunk in response.content.iter_chunked(MB):
                actual.update(chunk)
        assert actual.hexdigest() == expected.hexdigest()


def _partial_files(staging: Path) -> dict[str, int]:
    """In-progress uploads in local storage's staging area, with their sizes so far."""
    sizes: dict[str, int] = {}
    if not staging.exists():
        return sizes
    for path in staging.iterdir():
        if path.is_file():
            with contextlib.suppress(FileNotFoundError):  # finished or removed meanwhile
                sizes[path.name] = path.stat().st_size
    return sizes


async def test_a_dropped_upload_leaves_nothing_behind(live: ServerProcess) -> None:
    async with aiohttp.ClientSession() as session:
        headers, folder_path = await _signed_in(session, live)
    head = _form_head("dropped.bin")
    request = (
        f"POST /api/blobs/{folder_path} HTTP/1.1\r\n"
        f"Host: 127.0.0.1:{live.port}\r\n"
        f"x-auth-token: {headers['x-auth-token']}\r\n"
        f"Content-Type: multipart/form-data; boundary={BOUNDARY}\r\n"
        f"Content-Length: {len(head) + 20 * MB + len(FORM_TAIL)}\r\n\r\n"
    ).encode()
    folder = live.storage_path / folder_path
    staging = live.storage_path / STAGING_DIR
    reader, writer = await asyncio.open_connection("127.0.0.1", live.port)
    writer.write(request + head)
    for index in range(5):  # 5 of the promised 20 MB, then the connection drops
        writer.write(_block(index))
        await writer.drain()
    # The drop must come while the server is writing the file: its partial file is in storage.
    deadline = time.monotonic() + 30
    while not any(size >= MB for size in _partial_files(staging).values()):
        assert time.monotonic() < deadline, f"no partial file appeared: {_partial_files(staging)}"
        await asyncio.sleep(0.05)
    writer.transport.abort()
    with contextlib.suppress(OSError):
        await writer.wait_closed()
    deadline = time.monotonic() + 10
    while _partial_files(staging):
        assert time.monotonic() < deadline, "a partial upload was left in storage"
        await asyncio.sleep(0.1)
    assert not (folder / "dropped.bin").exists()
    async with (
        aiohttp.ClientSession() as session,
        session.get(f"{live.base}/api/blobs/{folder_path}", headers=headers) as response,
    ):
        names = [b["name"] for b in (await response.json())["blobs"]]
    assert "dropped.bin" not in names
    del reader
