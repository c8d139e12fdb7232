"""Enrolling, removing or resetting a second factor ends the user's other live connections
(`session:revoked`), never the one that made the change; a restricted session gets none."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import socketio

from bff.auth.sessions import open_session
from bff.users.models import Role
from tests.conftest import make_settings
from tests.factories import PASSWORD, make_staff
from tests.live.conftest import LiveServer, run_live
from tests.mfa.helpers import call, code, enrol_totp, login


@pytest.fixture
async def live(database_url: str, run_dir: Path, tmp_path: Path) -> AsyncIterator[LiveServer]:
    settings = make_settings(
        database_url,
        run_dir,
        storage_url=f"file://{tmp_path}/storage",
        mfa_required_roles="doctor",
    )
    async for server in run_live(settings):
        yield server


async def test_factor_changes_revoke_the_other_live_connections(live: LiveServer) -> None:
    nurse = await make_staff(live.settings, Role.NURSE)
    other_token = await open_session(nurse.user, live.settings, "127.0.0.1")
    this_tab = await live.listener(nurse.token, "this")
    other_tab = await live.listener(other_token, "other")
    client = live.app.test_client()
    secret, _, _ = await enrol_totp(client, nurse.token)
    assert await other_tab.wait_for("session:revoked") == {"reason": "mfa-changed"}
    await asyncio.wait_for(other_tab.disconnected.wait(), 3)
    third_tab = await live.listener(await open_session(nurse.user, live.settings, "127.0.0.1"))
    removed = await call(
        client, "DELETE", "/api/auth/mfa/totp", nurse.token, json={"code": code(secret, 1)}
    )
    assert removed.status_code == 200
    await third_tab.wait_for("session:revoked")
    await asyncio.wait_for(third_tab.disconnected.wait(), 3)
    assert this_tab.client.connected
    assert "session:revoked" not in this_tab.names()


async def test_an_admin_reset_revokes_every_live_connection(live: LiveServer) -> None:
    admin = await make_staff(live.settings, Role.ADMIN)
    nurse = await make_staff(live.settings, Role.NURSE)
    client = live.app.test_client()
    await enrol_totp(client, nurse.token)
    tab = await live.listener(nurse.token, "nurse")
    reset = await call(client, "DELETE", f"/api/users/{nurse.user.id}/mfa", admin.token)
    assert reset.status_code == 200
    assert await tab.wait_for("session:revoked") == {"reason": "mfa-reset"}
    await asyncio.wait_for(tab.disconnected.wait(), 3)


async def test_a_restricted_session_gets_no_live_connection(live: LiveServer) -> None:
    doctor = await make_staff(live.settings, Role.DOCTOR)
    client = live.app.test_client()
    body = await (await login(client, doctor.user.username, PASSWORD)).get_json()
    assert body["mfaEnrolmentRequired"] is True
    with pytest.raises(socketio.exceptions.ConnectionError):
        await live.listener(body["token"])
