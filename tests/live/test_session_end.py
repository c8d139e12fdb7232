"""Live connections end with their session (issue 15 point 3), with real Socket.IO clients:
when the session expires, and when it is ended by something no running process announces (a
row deleted by hand, the command line) - at once through Redis, else at the periodic check."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from bff.auth.models import Session
from bff.services import app_services
from bff.users.models import Role
from tests.conftest import make_settings
from tests.factories import make_staff
from tests.live.conftest import Listener, LiveServer, marker, run_live
from tools.devserver import REPO, ServerProcess, local_env

ADMIN_PASSWORD = "session-end-admin-pw"


@pytest.fixture
async def short_sessions(
    database_url: str, run_dir: Path, tmp_path: Path
) -> AsyncIterator[LiveServer]:
    """Sessions of about 4 seconds (BFF_SESSION_HOURS=0.001), sessions cached for a minute."""
    settings = make_settings(
        database_url,
        run_dir,
        storage_url=f"file://{tmp_path}/storage",
        session_hours=0.001,
        session_cache_seconds=60,
    )
    async for server in run_live(settings):
        yield server


async def test_a_connection_ends_when_its_session_expires(short_sessions: LiveServer) -> None:
    live = short_sessions
    nurse = await make_staff(live.settings, Role.NURSE)
    started = time.monotonic()
    tab = await live.listener(nurse.token, "nurse")
    assert await tab.wait_for("session:revoked", within=15) == {"reason": "expired"}
    await asyncio.wait_for(tab.disconnected.wait(), 3)
    assert time.monotonic() - started < 15
    client = live.app.test_client()
    assert (await client.get("/api/auth/me", headers=nurse.headers)).status_code == 401


@pytest.fixture
async def quick_checks(
    database_url: str, run_dir: Path, tmp_path: Path
) -> AsyncIterator[LiveServer]:
    """Sessions re-checked every half second, and cached for a minute."""
    settings = make_settings(
        database_url,
        run_dir,
        storage_url=f"file://{tmp_path}/storage",
        live_session_check_seconds=0.5,
        session_cache_seconds=60,
    )
    async for server in run_live(settings):
        yield server


async def test_a_session_deleted_by_hand_ends_its_connections_and_cache_entry(
    quick_checks: LiveServer,
) -> None:
    live = quick_checks
    nurse = await make_staff(live.settings, Role.NURSE)
    bystander = await make_staff(live.settings, Role.NURSE)
    admin = await make_staff(live.settings, Role.ADMIN)
    client = live.app.test_client()
    assert (await client.get("/api/auth/me", headers=nurse.headers)).status_code == 200  # cached
    tab = await live.listener(nurse.token, "nurse")
    other = await live.listener(bystander.token, "bystander")
    await Session.filter(user_id=nurse.user.id).delete()  # no process is told
    assert await tab.wait_for("session:revoked", within=5) == {"reason": "ended"}
    await asyncio.wait_for(tab.disconnected.wait(), 3)
    assert (await client.get("/api/auth/me", headers=nurse.headers)).status_code == 401
    # An event sent to the bystander after the check that ended the nurse's connection: once
    # it has arrived, a revocation that check sent them would have arrived before it.
    await marker(live, admin, other, bystander.user)
    assert other.client.connected
    assert "session:revoked" not in other.names()


async def test_the_check_is_one_query_for_every_connection(quick_checks: LiveServer) -> None:
    """Many connections of many sessions: one re-check, and only the ended ones close."""
    live = quick_checks
    staff = [await make_staff(live.settings, Role.NURSE) for _ in range(6)]
    tabs = [await live.listener(member.token, f"tab-{i}") for i, member in enumerate(staff)]
    await Session.filter(user_id__in=[m.user.id for m in staff[:3]]).delete()
    for tab in tabs[:3]:
        await asyncio.wait_for(tab.disconnected.wait(), 5)
    hub = app_services(live.app).live
    assert await hub.check_sessions() == 0  # the others are alive
    assert all(tab.client.connected for tab in tabs[3:])


def _reset_password(env: dict[str, str]) -> str:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "bff",
            "users",
            "reset-password",
            "--username",
            "admin",
            "--password",
            "a-brand-new-password",
        ],
        env=env,
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


async def _signed_in_listener(server: ServerProcess) -> tuple[str, Listener]:
    async with aiohttp.ClientSession() as http:
        login = {"username": "admin", "password": ADMIN_PASSWORD}
        async with http.post(f"{server.base}/api/auth/login", json=login) as response:
            token: str = (await response.json())["token"]
        async with http.get(
            f"{server.base}/api/auth/me", headers={"x-auth-token": token}
        ) as response:
            assert response.status == 200  # now cached in the server process
    listener = Listener("admin")
    await listener.connect(server.base, token)
    return token, listener


async def _me_status(server: ServerProcess, token: str) -> int:
    async with (
        aiohttp.ClientSession() as http,
        http.get(f"{server.base}/api/auth/me", headers={"x-auth-token": token}) as response,
    ):
        return response.status


@pytest.mark.parametrize("with_redis", [True, False], ids=["redis", "no-redis"])
async def test_a_password_reset_on_the_command_line_ends_live_connections(
    tmp_path: Path, request: pytest.FixtureRequest, with_redis: bool
) -> None:
    """With Redis the command announces the ended sessions: the running server closes the
    socket at once, although it would re-check only after a minute. Without Redis the server's
    periodic check (here every second) finds the session gone."""
    settings: dict[str, Any] = {"admin_password": ADMIN_PASSWORD, "session_cache_seconds": "60"}
    if with_redis:
        settings |= {"redis_url": request.getfixturevalue("redis").url}
        settings |= {"live_session_check_seconds": "60"}
    else:
        settings |= {"live_session_check_seconds": "1"}
    env = local_env(tmp_path, **settings)
    server = ServerProcess(env)
    try:
        token, listener = await _signed_in_listener(server)
        try:
            started = time.monotonic()
            output = await asyncio.to_thread(_reset_password, env)
            assert "1 session(s) ended" in output
            expected = {"reason": "password-changed"} if with_redis else {"reason": "ended"}
            assert await listener.wait_for("session:revoked", within=10) == expected
            await asyncio.wait_for(listener.disconnected.wait(), 5)
            assert time.monotonic() - started < 30
            assert await _me_status(server, token) == 401  # the cached session is gone too
        finally:
            await listener.close()
    finally:
        server.stop()
