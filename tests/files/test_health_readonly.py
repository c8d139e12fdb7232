"""Readiness on a disk that refuses writes (issue 31, point 7): a real server whose storage root
is a small tmpfs of its own, remounted read-only under it (chmod would not stop root) and back.
Before, `/api/health` asked storage only for a stat and said "ok" while every upload got 503.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import aiohttp
import pytest
from quart import Quart

from bff.services import app_services
from tools.devserver import ServerProcess, local_env

ADMIN_PASSWORD = "health-readonly-admin-pass"


def _mount(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["mount", *args], capture_output=True, text=True, check=False)  # noqa: S603, S607 - fixed arguments


@pytest.fixture
def tmpfs_root(tmp_path: Path) -> Iterator[Path]:
    """A 4 MB tmpfs mounted for the test (unmounted after it); skipped where mounting is not
    allowed (not root, no CAP_SYS_ADMIN)."""
    root = tmp_path / "storage"
    root.mkdir()
    if os.geteuid() != 0 or _mount("-t", "tmpfs", "-o", "size=4m", "tmpfs", str(root)).returncode:
        pytest.skip("needs to mount a tmpfs (root with CAP_SYS_ADMIN)")
    try:
        yield root
    finally:
        _mount("-o", "remount,rw", str(root))
        subprocess.run(["umount", "-l", str(root)], check=False)  # noqa: S603, S607 - fixed arguments


async def _health(http: aiohttp.ClientSession, base: str) -> tuple[int, dict[str, str]]:
    async with http.get(f"{base}/api/health") as response:
        return response.status, await response.json()


async def _upload(http: aiohttp.ClientSession, base: str, headers: dict[str, str]) -> int:
    form = aiohttp.FormData()
    form.add_field("file", b"readonly", filename="note.txt")
    async with http.post(f"{base}/api/blobs/ward-ro/patient-1", data=form, headers=headers) as r:
        await r.read()
        return r.status


async def test_health_says_storage_is_down_when_the_disk_refuses_writes(
    tmp_path: Path, tmpfs_root: Path
) -> None:
    env = local_env(tmp_path, admin_password=ADMIN_PASSWORD)
    env["BFF_STORAGE_URL"] = f"file://{tmpfs_root}"
    server = ServerProcess(env)
    try:
        async with aiohttp.ClientSession() as http:
            assert await _health(http, server.base) == (
                200,
                {"status": "ok", "database": "ok", "storage": "ok"},
            )
            body = {"username": "admin", "password": ADMIN_PASSWORD}
            async with http.post(f"{server.base}/api/auth/login", json=body) as response:
                headers = {"x-auth-token": (await response.json())["token"]}
            for url, payload in (
                ("/api/admin/containers", {"name": "ward-ro"}),
                ("/api/admin/containers/ward-ro/folders", {"name": "patient-1"}),
            ):
                async with http.post(server.base + url, json=payload, headers=headers) as r:
                    assert r.status == 201, await r.text()

            remounted = _mount("-o", "remount,ro", str(tmpfs_root))
            assert remounted.returncode == 0, remounted.stderr
            assert await _upload(http, server.base, headers) == 503
            status, answer = await _health(http, server.base)
            print(f"\nread-only storage: health {status} {answer}")
            assert (status, answer) == (503, {"message": "The file storage is unavailable."})

            assert _mount("-o", "remount,rw", str(tmpfs_root)).returncode == 0
            assert (await _health(http, server.base))[0] == 200
            assert await _upload(http, server.base, headers) == 201
        # The probes left nothing behind in the staging area.
        with contextlib.suppress(FileNotFoundError):
            assert list((tmpfs_root / ".bff-staging").iterdir()) == []
    finally:
        server.stop()


async def test_the_probe_writes_and_removes_a_staged_object_on_each_backend(
    storage_app: Quart,
) -> None:
    """On local disk and S3 (moto) alike the readiness probe's write succeeds and leaves
    nothing staged (a refusing S3 bucket is not reproducible with moto)."""
    response = await storage_app.test_client().get("/api/health")
    assert response.status_code == 200, await response.get_data()
    assert await app_services(storage_app).storage.list_staged() == []
