"""Sessions are cached per process (bff/auth/session_cache.py); every way a session ends or an
account changes still takes effect on the very next request, and nothing else stays longer
than BFF_SESSION_CACHE_SECONDS."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from quart.testing import QuartClient as Client

from bff.auth import session_cache
from bff.auth.models import Session
from bff.users.models import Role
from config.settings import Settings
from tests.conftest import make_settings, started_app
from tests.factories import StaffMember, assign, make_container, make_folder, make_staff

Revoke = Callable[[Client, StaffMember, StaffMember], Awaitable[int]]


async def _me(client: Client, who: StaffMember) -> int:
    return (await client.get("/api/auth/me", headers=who.headers)).status_code


async def _update(client: Client, admin: StaffMember, nurse: StaffMember, **change: str) -> int:
    body = {"name": nurse.user.name, "username": nurse.user.username, "role": "nurse", **change}
    response = await client.put(f"/api/users/{nurse.user.id}", headers=admin.headers, json=body)
    return response.status_code


async def _logout(client: Client, admin: StaffMember, nurse: StaffMember) -> int:
    return (await client.post("/api/auth/logout", headers=nurse.headers)).status_code


async def _logout_all(client: Client, admin: StaffMember, nurse: StaffMember) -> int:
    return (await client.post("/api/auth/logout-all", headers=nurse.headers)).status_code


async def _new_password(client: Client, admin: StaffMember, nurse: StaffMember) -> int:
    return await _update(client, admin, nurse, password="a-brand-new-password")


async def _new_role(client: Client, admin: StaffMember, nurse: StaffMember) -> int:
    return await _update(client, admin, nurse, role="assistant")


async def _delete(client: Client, admin: StaffMember, nurse: StaffMember) -> int:
    return (await client.delete(f"/api/users/{nurse.user.id}", headers=admin.headers)).status_code


@pytest.mark.parametrize("revoke", [_logout, _logout_all, _new_password, _new_role, _delete])
async def test_a_cached_session_ends_on_the_next_request(
    client: Client, settings: Settings, revoke: Revoke
) -> None:
    admin = await make_staff(settings, Role.ADMIN)
    nurse = await make_staff(settings, Role.NURSE)
    for _ in range(3):  # read once, then served from the cache
        assert await _me(client, nurse) == 200
    assert await revoke(client, admin, nurse) == 200
    assert await _me(client, nurse) == 401
    assert (await client.get("/api/auth/validate-token", headers=nurse.headers)).status_code == 401
    assert await _me(client, admin) == 200


async def test_a_renamed_user_sees_the_new_name_at_once(client: Client, settings: Settings) -> None:
    admin = await make_staff(settings, Role.ADMIN)
    nurse = await make_staff(settings, Role.NURSE)
    assert await _me(client, nurse) == 200
    assert await _update(client, admin, nurse, name="Nurse Renamed") == 200
    body = await (await client.get("/api/auth/validate-token", headers=nurse.headers)).get_json()
    assert body["user"]["name"] == "Nurse Renamed"
    me = await (await client.get("/api/auth/me", headers=nurse.headers)).get_json()
    assert me["user"]["name"] == "Nurse Renamed"


async def test_assignment_changes_apply_to_a_cached_session_at_once(
    client: Client, settings: Settings
) -> None:
    admin = await make_staff(settings, Role.ADMIN)
    nurse = await make_staff(settings, Role.NURSE)
    ward = await make_container("ward-cache")
    folder = await make_folder(ward, "patient-1")
    await assign(nurse.user, ward, folder)
    url = "/api/blobs/ward-cache/patient-1"
    assert (await client.get(url, headers=nurse.headers)).status_code == 200
    me = await (await client.get("/api/auth/me", headers=nurse.headers)).get_json()
    assignment = me["user"]["folderAssignments"][0]["id"]
    response = await client.delete(
        f"/api/assignments/{assignment}?type=folder", headers=admin.headers
    )
    assert response.status_code == 200
    assert (await client.get(url, headers=nurse.headers)).status_code == 404
    me = await (await client.get("/api/auth/me", headers=nurse.headers)).get_json()
    assert me["user"]["folderAssignments"] == []
    # Given back: usable at once, though the caller's assignments were just cached without it.
    response = await client.post(
        "/api/assignments/containers/ward-cache/folders",
        headers=admin.headers,
        json={"userId": nurse.user.id, "folderNames": ["patient-1"]},
    )
    assert response.status_code == 201
    assert (await client.get(url, headers=nurse.headers)).status_code == 200
    mine = await (
        await client.get("/api/assignments/my-assignments", headers=nurse.headers)
    ).get_json()
    assert mine["assignments"][0]["folders"][0]["folderName"] == "patient-1"


class Clock:
    """The session cache's clock, moved by the test: no sleeping, and no load can make a
    cached entry expire early."""

    def __init__(self) -> None:
        self.now = 1000.0

    def monotonic(self) -> float:
        return self.now

    time = staticmethod(time.time)  # the cache also compares token expiries with Unix time


@pytest.mark.parametrize(("seconds", "still_cached"), [(60, True), (0, False)])
async def test_a_change_no_process_announced_lasts_at_most_the_time_limit(
    database_url: str,
    run_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
    seconds: float,
    still_cached: bool,
) -> None:
    """A session deleted behind the app's back (as the command line does) lasts at most
    BFF_SESSION_CACHE_SECONDS; with 0 the session is read on every request."""
    clock = Clock()
    monkeypatch.setattr(session_cache, "time", clock)  # before the app creates its cache
    settings = make_settings(database_url, run_dir, session_cache_seconds=seconds)
    async with started_app(settings) as app:
        client = app.test_client()
        nurse = await make_staff(settings, Role.NURSE)
        assert await _me(client, nurse) == 200
        await Session.filter(user_id=nurse.user.id).delete()
        clock.now += 0.99 * seconds  # just within the limit
        assert await _me(client, nurse) == (200 if still_cached else 401)
        clock.now += 0.02 * seconds + 0.01  # just past it
        assert await _me(client, nurse) == 401
