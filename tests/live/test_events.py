"""Live events with real Socket.IO clients: the right people, and only them, hear of a change.

That someone did not hear of a change is proved with a marker: an event sent to them after the
change's event was sent to its recipients. One connection delivers its events in the order the
server sent them, so once the marker has arrived, an event that was sent to them earlier would
have arrived too. Nothing is proved by waiting a while.
"""

from __future__ import annotations

import asyncio
import secrets
from io import BytesIO

import pytest
import socketio
from werkzeug.datastructures import FileStorage

from bff.users.models import Role
from tests import samples
from tests.factories import assign, make_container, make_folder, make_staff
from tests.live.conftest import LiveServer, marker, uploads
from tests.sun_tag import SimulatedTag, path_of


def content_of(name: str) -> bytes:
    """A file's content as its name says (a PDF for .pdf, else text)."""
    return samples.pdf() if name.endswith(".pdf") else b"x"


async def _upload(live: LiveServer, staff: object, container: str, folder: str, name: str) -> None:
    client = live.app.test_client()
    response = await client.post(
        f"/api/blobs/{container}/{folder}",
        files={"file": FileStorage(BytesIO(content_of(name)), filename=name)},
        headers=staff.headers,  # type: ignore[attr-defined]
    )
    assert response.status_code == 201, await response.get_data()


async def test_no_session_no_connection(live: LiveServer) -> None:
    for token in (None, "not-a-token"):
        with pytest.raises(socketio.exceptions.ConnectionError):
            await live.listener(token)


async def test_file_events_reach_admins_and_assigned_staff_only(live: LiveServer) -> None:
    container = await make_container()
    folder = await make_folder(container, "patient-1")
    admin = await make_staff(live.settings, Role.ADMIN)
    nurse = await make_staff(live.settings, Role.NURSE)
    outsider = await make_staff(live.settings, Role.NURSE)
    sibling = await make_staff(live.settings, Role.DOCTOR)
    await assign(nurse.user, container, folder)
    await assign(outsider.user, container)  # the container, but not this folder
    # The care team of another folder of the same container: never told of this one.
    await assign(sibling.user, container, await make_folder(container, "patient-2"))
    admin_ears = await live.listener(admin.token, "admin")
    nurse_ears = await live.listener(nurse.token, "nurse")
    outsider_ears = await live.listener(outsider.token, "outsider")
    sibling_ears = await live.listener(sibling.token, "sibling")

    await _upload(live, nurse, container.name, "patient-1", "scan.pdf")
    payload = {"container": container.name, "folder": "patient-1", "name": "scan.pdf"}
    assert await nurse_ears.wait_for("file:uploaded") == payload
    assert await admin_ears.wait_for("file:uploaded") == payload
    await marker(live, admin, outsider_ears, outsider.user)
    await marker(live, admin, sibling_ears, sibling.user)
    await marker(live, admin, nurse_ears, nurse.user)
    assert "file:uploaded" not in outsider_ears.names()
    assert "file:uploaded" not in sibling_ears.names()
    assert "audit:created" not in nurse_ears.names() + outsider_ears.names()
    assert (await admin_ears.wait_for("audit:created"))["operation"] == "file_upload"

    # Assigning the folder changes what the outsider hears at once.
    client = live.app.test_client()
    since = len(outsider_ears.events)
    response = await client.post(
        f"/api/assignments/containers/{container.name}/folders",
        json={"userId": outsider.user.id, "folderNames": ["patient-1"]},
        headers=admin.headers,
    )
    assert response.status_code == 201
    [assignment] = (await response.get_json())["assigned"]
    changed = await outsider_ears.wait_for("assignments:changed", since=since)
    assert changed == {"userId": outsider.user.id}
    await _upload(live, admin, container.name, "patient-1", "second.pdf")
    assert (await outsider_ears.wait_for("file:uploaded"))["name"] == "second.pdf"
    # And unassigning it (the admin's DELETE /api/assignments/{id}) stops them at once.
    since = len(outsider_ears.events)
    response = await client.delete(
        f"/api/assignments/{assignment['id']}",
        query_string={"type": "folder"},
        headers=admin.headers,
    )
    assert response.status_code == 200, await response.get_data()
    assert await outsider_ears.wait_for("assignments:changed", since=since) == changed
    outsider_ears.events.clear()
    nurse_seen = len(nurse_ears.events)
    await _upload(live, admin, container.name, "patient-1", "third.pdf")
    assert (await nurse_ears.wait_for("file:uploaded", since=nurse_seen))["name"] == "third.pdf"
    await marker(live, admin, outsider_ears, outsider.user)
    assert uploads(outsider_ears) == []
    await marker(live, admin, sibling_ears, sibling.user)
    assert uploads(sibling_ears) == []  # none of the three uploads reached patient-2's team


async def test_delete_and_profile_events(live: LiveServer) -> None:
    container = await make_container()
    folder = await make_folder(container, "patient-1")
    admin = await make_staff(live.settings, Role.ADMIN)
    nurse = await make_staff(live.settings, Role.NURSE)
    await assign(nurse.user, container, folder)
    ears = await live.listener(nurse.token)
    await _upload(live, nurse, container.name, "patient-1", "old.txt")
    client = live.app.test_client()
    response = await client.delete(
        f"/api/blobs/{container.name}/patient-1/old.txt", headers=admin.headers
    )
    assert response.status_code == 200
    deleted = await ears.wait_for("file:deleted")
    assert deleted == {"container": container.name, "folder": "patient-1", "name": "old.txt"}


async def test_logout_revokes_and_disconnects_only_that_session(live: LiveServer) -> None:
    admin = await make_staff(live.settings, Role.ADMIN)
    nurse = await make_staff(live.settings, Role.NURSE)
    from bff.auth.sessions import open_session

    other_token = await open_session(nurse.user, live.settings, "127.0.0.1")
    this_tab = await live.listener(nurse.token, "this")
    other_tab = await live.listener(other_token, "other")
    client = live.app.test_client()
    assert (await client.post("/api/auth/logout", headers=nurse.headers)).status_code == 200
    assert await this_tab.wait_for("session:revoked") == {"reason": "logout"}
    await asyncio.wait_for(this_tab.disconnected.wait(), 3)
    await marker(live, admin, other_tab, nurse.user)  # still connected, so it arrives
    assert other_tab.client.connected
    assert "session:revoked" not in other_tab.names()


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ("logout-all", "logout-all"),
        ("delete", "account-deleted"),
        ("role", "role-changed"),
        ("password", "password-changed"),
        ("role and password", "password-changed"),
    ],
)
async def test_account_changes_end_every_connection_of_the_user(
    live: LiveServer, change: str, reason: str
) -> None:
    """Every connection of the user is told why (the web app words the reason) and closed."""
    admin = await make_staff(live.settings, Role.ADMIN)
    nurse = await make_staff(live.settings, Role.NURSE)
    bystander = await make_staff(live.settings, Role.NURSE)
    tab = await live.listener(nurse.token, "nurse")
    other = await live.listener(bystander.token, "bystander")
    client = live.app.test_client()
    user_url = f"/api/users/{nurse.user.id}"
    if change == "logout-all":
        response = await client.post("/api/auth/logout-all", headers=nurse.headers)
    elif change == "delete":
        response = await client.delete(user_url, headers=admin.headers)
    else:
        body = {"name": nurse.user.name, "username": nurse.user.username, "role": "nurse"}
        if "role" in change:
            body["role"] = "doctor"
        if "password" in change:
            body["password"] = "a-brand-new-password"
        response = await client.put(user_url, json=body, headers=admin.headers)
    assert response.status_code == 200, await response.get_data()
    assert await tab.wait_for("session:revoked") == {"reason": reason}
    await asyncio.wait_for(tab.disconnected.wait(), 2)
    await marker(live, admin, other, bystander.user)  # still connected, so it arrives
    assert other.client.connected
    assert "session:revoked" not in other.names()


async def test_admins_hear_tokens_users_and_emergency_alerts(live: LiveServer) -> None:
    admin = await make_staff(live.settings, Role.ADMIN)
    nurse = await make_staff(live.settings, Role.NURSE)
    admin_ears = await live.listener(admin.token)
    nurse_ears = await live.listener(nurse.token)
    container = await make_container()
    await make_folder(container, "patient-1")
    client = live.app.test_client()
    registered = await client.post(
        "/patients/admin/register", json={"secureChipId": "live-chip"}, headers=admin.headers
    )
    body = await registered.get_json()
    token_id = body["smartTokenId"]
    assert await admin_ears.wait_for("token:registered") == {"tokenId": token_id}
    await client.post(
        "/patients/admin/assign",
        json={
            "tokenId": token_id,
            "containerName": container.name,
            "folderName": "patient-1",
            "patientName": "Live Patient",
        },
        headers=admin.headers,
    )
    assigned = await admin_ears.wait_for("token:assigned")
    assert assigned == {"tokenId": token_id, "container": container.name, "folder": "patient-1"}
    responder = live.app.test_client()
    link = body["verificationUrl"].split(":8000", 1)[-1]
    assert (await responder.get(link)).status_code == 303
    alert = await admin_ears.wait_for("emergency:opened")
    assert alert["tokenId"] == token_id
    created = await client.post(
        "/api/auth/register",
        json={
            "name": "New",
            "username": "new.nurse",
            "password": "long-enough-pw",
            "role": "nurse",
        },
        headers=admin.headers,
    )
    assert created.status_code == 201
    await admin_ears.wait_for("users:changed")
    await marker(live, admin, nurse_ears, nurse.user)
    heard = set(nurse_ears.names())
    assert not heard & {"token:registered", "token:assigned", "emergency:opened", "users:changed"}


async def test_admins_hear_a_replayed_sun_tap_refused(live: LiveServer) -> None:
    admin = await make_staff(live.settings, Role.ADMIN)
    nurse = await make_staff(live.settings, Role.NURSE)
    admin_ears = await live.listener(admin.token)
    nurse_ears = await live.listener(nurse.token)
    container = await make_container()
    await make_folder(container, "patient-1")
    client = live.app.test_client()
    uid = secrets.token_bytes(7)
    registered = await client.post(
        "/patients/admin/register",
        json={"secureChipId": "live-sun", "sun": {"uid": uid.hex()}},
        headers=admin.headers,
    )
    made = await registered.get_json()
    token_id, personal = made["smartTokenId"], made["sun"]
    await client.post(
        "/patients/admin/assign",
        json={
            "tokenId": token_id,
            "containerName": container.name,
            "folderName": "patient-1",
            "patientName": "Live Patient",
        },
        headers=admin.headers,
    )
    tag = SimulatedTag(
        uid=uid,
        meta_read_key=live.settings.sdm_meta_read_key_bytes(),
        file_read_key=bytes.fromhex(personal["fileReadKey"]),
        template=personal["urlTemplate"],
        picc_data_offset=personal["piccDataOffset"],
        mac_offset=personal["macOffset"],
    )
    url = path_of(tag.tap())
    assert (await live.app.test_client().get(url)).status_code == 303
    assert (await admin_ears.wait_for("emergency:opened"))["tokenId"] == token_id
    assert (await live.app.test_client().get(url)).status_code == 303  # the same URL again
    assert await admin_ears.wait_for("emergency:refused") == {
        "tokenId": token_id,
        "reason": "replayed",
    }
    await marker(live, admin, nurse_ears, nurse.user)
    assert not set(nurse_ears.names()) & {"emergency:opened", "emergency:refused"}


def test_the_web_app_shares_the_event_names() -> None:
    from pathlib import Path

    from bff.webconstants import typescript

    generated = Path(__file__).resolve().parents[2] / "frontend/src/lib/server.gen.ts"
    assert generated.read_text() == typescript(), (
        "run: .venv/bin/python -m bff web-constants > frontend/src/lib/server.gen.ts"
    )
