"""Live events across processes: two Hypercorn servers on two ports share one Redis on
127.0.0.1; and with Redis gone, requests still succeed."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from functools import partial
from io import BytesIO
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from werkzeug.datastructures import FileStorage

from bff.users.models import Role
from tests import samples
from tests.conftest import make_settings
from tests.factories import assign, make_container, make_folder, make_staff
from tests.live.conftest import Listener, LiveServer, run_live
from tools.devserver import RedisProcess, ServerProcess, free_port, local_env

REDIS_URL = "redis://127.0.0.1:6379/12"
ADMIN_PASSWORD = "two-process-admin-pw"


@pytest.fixture
def two_processes(tmp_path: Path) -> Iterator[tuple[ServerProcess, ServerProcess]]:
    # Sessions cached for a minute: anything sooner than that is the other process being told.
    env = local_env(
        tmp_path, redis_url=REDIS_URL, admin_password=ADMIN_PASSWORD, session_cache_seconds="60"
    )
    first = ServerProcess(env)  # started (and the shared database migrated) before the second
    try:
        second = ServerProcess(env)
        try:
            yield first, second
        finally:
            second.stop()
    finally:
        first.stop()


async def _call(
    session: aiohttp.ClientSession, method: str, url: str, token: str | None = None, **kw: Any
) -> Any:
    headers = {"x-auth-token": token} if token else {}
    async with session.request(method, url, headers=headers, **kw) as response:
        assert response.status < 400, (url, response.status, await response.text())
        return await response.json()


async def _sign_in(http: aiohttp.ClientSession, base: str, username: str, password: str) -> str:
    login = {"username": username, "password": password}
    token: str = (await _call(http, "POST", f"{base}/api/auth/login", json=login))["token"]
    return token


async def _register_nurse(
    http: aiohttp.ClientSession, base: str, admin: str, username: str, password: str
) -> None:
    body = {"name": "Nurse", "username": username, "password": password, "role": "nurse"}
    await _call(http, "POST", f"{base}/api/auth/register", admin, json=body)


async def test_events_cross_processes_through_redis(
    two_processes: tuple[ServerProcess, ServerProcess],
) -> None:
    a, b = two_processes
    async with aiohttp.ClientSession() as http:
        admin = await _sign_in(http, a.base, "admin", ADMIN_PASSWORD)
        await _call(http, "POST", f"{a.base}/api/admin/containers", admin, json={"name": "ward-x"})
        await _call(
            http,
            "POST",
            f"{a.base}/api/admin/containers/ward-x/folders",
            admin,
            json={"name": "p-1"},
        )
        await _register_nurse(http, a.base, admin, "x.nurse", "x-nurse-password")
        nurse = await _sign_in(http, b.base, "x.nurse", "x-nurse-password")
        on_b_admin = Listener("admin on B")
        on_b_nurse = Listener("nurse on B")
        await on_b_admin.connect(b.base, admin)
        await on_b_nurse.connect(b.base, nurse)
        try:
            form = aiohttp.FormData()
            form.add_field("file", samples.pdf("Scan"), filename="scan.pdf")
            await _call(http, "POST", f"{a.base}/api/blobs/ward-x/p-1", admin, data=form)
            uploaded = await on_b_admin.wait_for("file:uploaded", within=5)
            assert uploaded == {"container": "ward-x", "folder": "p-1", "name": "scan.pdf"}
            users = await _call(http, "GET", f"{a.base}/api/users", admin)
            nurse_id = next(u["id"] for u in users["users"] if u["username"] == "x.nurse")
            await _call(http, "DELETE", f"{a.base}/api/users/{nurse_id}", admin)
            assert await on_b_nurse.wait_for("session:revoked", within=5) == {
                "reason": "account-deleted"
            }
            await asyncio.wait_for(on_b_nurse.disconnected.wait(), 5)
            assert on_b_admin.client.connected
        finally:
            await on_b_admin.close()
            await on_b_nurse.close()


async def _status_within(
    http: aiohttp.ClientSession, url: str, token: str, status: int, seconds: float = 3
) -> float:
    """Poll url until it answers status; how long that took (AssertionError after seconds)."""
    start = time.monotonic()
    while True:
        async with http.get(url, headers={"x-auth-token": token}) as response:
            if response.status == status:
                return time.monotonic() - start
        assert time.monotonic() - start < seconds, f"{url} never answered {status}"
        await asyncio.sleep(0.02)


async def test_a_session_cached_in_one_process_ends_when_another_revokes_it(
    two_processes: tuple[ServerProcess, ServerProcess],
) -> None:
    a, b = two_processes
    async with aiohttp.ClientSession() as http:
        admin = await _sign_in(http, a.base, "admin", ADMIN_PASSWORD)
        await _register_nurse(http, a.base, admin, "c.nurse", "c-nurse-passphrase")
        phone = await _sign_in(http, a.base, "c.nurse", "c-nurse-passphrase")
        tablet = await _sign_in(http, a.base, "c.nurse", "c-nurse-passphrase")
        for token in (phone, tablet, phone, tablet):  # both sessions now cached on B
            await _call(http, "GET", f"{b.base}/api/auth/me", token)
        # A rename on A shows on B.
        me = await _call(http, "GET", f"{b.base}/api/auth/me", phone)
        await _call(
            http,
            "PUT",
            f"{a.base}/api/users/{me['user']['id']}",
            admin,
            json={"name": "Nurse Renamed", "username": "c.nurse", "role": "nurse"},
        )
        start = time.monotonic()
        while (await _call(http, "GET", f"{b.base}/api/auth/me", phone))["user"][
            "name"
        ] != "Nurse Renamed":
            assert time.monotonic() - start < 3, "the rename never reached B"
            await asyncio.sleep(0.02)
        # An assignment removed on A is gone on B (whose permission checks cached it).
        ward = f"{b.base}/api/blobs/ward-c/p-1"
        await _call(http, "POST", f"{a.base}/api/admin/containers", admin, json={"name": "ward-c"})
        folders = f"{a.base}/api/admin/containers/ward-c/folders"
        await _call(http, "POST", folders, admin, json={"name": "p-1"})
        user_id = me["user"]["id"]
        assign = f"{a.base}/api/assignments/containers/ward-c"
        await _call(http, "POST", f"{assign}/users/{user_id}", admin)
        body = {"userId": user_id, "folderNames": ["p-1"]}
        await _call(http, "POST", f"{assign}/folders", admin, json=body)
        await _call(http, "GET", ward, phone)
        mine = await _call(http, "GET", f"{b.base}/api/auth/me", phone)
        assignment = mine["user"]["folderAssignments"][0]["id"]
        await _call(http, "DELETE", f"{a.base}/api/assignments/{assignment}?type=folder", admin)
        assert await _status_within(http, ward, phone, 404) < 3
        # Signing one device out on A ends that session on B, not the other one.
        await _call(http, "POST", f"{a.base}/api/auth/logout", phone)
        assert await _status_within(http, f"{b.base}/api/auth/me", phone, 401) < 3
        await _call(http, "GET", f"{b.base}/api/auth/me", tablet)
        # Deleting the account on A ends the rest on B.
        await _call(http, "DELETE", f"{a.base}/api/users/{me['user']['id']}", admin)
        assert await _status_within(http, f"{b.base}/api/auth/me", tablet, 401) < 3


async def test_requests_succeed_with_redis_down(
    database_url: str, run_dir: Path, tmp_path: Path
) -> None:
    dead = f"redis://127.0.0.1:{free_port()}/0"  # nothing listens there
    settings = make_settings(
        database_url, run_dir, storage_url=f"file://{tmp_path}/storage", redis_url=dead
    )
    server: LiveServer
    async for server in run_live(settings):
        container = await make_container()
        folder = await make_folder(container, "patient-1")
        nurse = await make_staff(settings, Role.NURSE)
        await assign(nurse.user, container, folder)
        client = server.app.test_client()
        started = time.monotonic()
        response = await client.post(
            f"/api/blobs/{container.name}/patient-1",
            files={"file": FileStorage(BytesIO(b"x"), filename="a.txt")},
            headers=nurse.headers,
        )
        assert response.status_code == 201
        assert time.monotonic() - started < 2  # the emit did not hold the request


async def _upload(client: Any, url: str, headers: dict[str, str], name: str) -> None:
    files = {"file": FileStorage(BytesIO(b"x"), filename=name)}
    response = await client.post(url, files=files, headers=headers)
    assert response.status_code == 201


async def test_delivery_resumes_when_redis_returns(
    database_url: str, run_dir: Path, tmp_path: Path
) -> None:
    redis = RedisProcess()
    redis.start()
    settings = make_settings(
        database_url, run_dir, storage_url=f"file://{tmp_path}/storage", redis_url=redis.url
    )
    try:
        async for server in run_live(settings):
            container = await make_container()
            folder = await make_folder(container, "patient-1")
            nurse = await make_staff(settings, Role.NURSE)
            await assign(nurse.user, container, folder)
            ears = await server.listener(nurse.token)
            url = f"/api/blobs/{container.name}/patient-1"
            upload = partial(_upload, server.app.test_client(), url, nurse.headers)
            await upload("before.txt")
            assert (await ears.wait_for("file:uploaded", within=5))["name"] == "before.txt"
            redis.stop()
            await upload("during.txt")  # succeeds; its event is lost, and that is logged
            redis.start()
            deadline = time.monotonic() + 30
            attempt = 0
            while True:
                attempt += 1
                await upload(f"after-{attempt}.txt")
                await asyncio.sleep(0.5)
                if any(d.get("name", "").startswith("after-") for _, d in ears.events):
                    break
                assert time.monotonic() < deadline, (
                    "live events did not resume after Redis came back"
                )
    finally:
        redis.stop()
