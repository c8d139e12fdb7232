"""Editing users: name, username, role and password, the sessions each change ends, the rules."""

from __future__ import annotations

from quart.testing import QuartClient as Client

from bff.auth.models import Session
from bff.users.models import Role, User
from config.settings import Settings
from tests.factories import PASSWORD, make_staff, make_user
from tests.helpers import audit_entries, error_message
from tests.users.helpers import (
    USER_DETAIL_FIELDS,
    assert_no_secrets,
    json_body,
    login_status,
    make_admin,
)


async def test_update_name_username_role(client: Client, settings: Settings) -> None:
    admin = await make_admin(settings)
    nurse = await make_staff(settings, Role.NURSE)
    response = await client.put(
        f"/api/users/{nurse.user.id}",
        headers=admin.headers,
        json={"name": "  Renamed  ", "username": "New.Name", "role": "doctor"},
    )
    assert response.status_code == 200
    user = (await json_body(response))["user"]
    assert set(user) == USER_DETAIL_FIELDS
    assert (user["name"], user["username"], user["role"]) == ("Renamed", "new.name", "doctor")
    stored = await User.get(id=nurse.user.id)
    assert (stored.name, stored.username, stored.role) == ("Renamed", "new.name", Role.DOCTOR)
    entries = await audit_entries("user_update")
    assert len(entries) == 1
    assert entries[0].user_id == admin.user.id
    assert "user=new.name" in entries[0].details
    assert "role" in entries[0].details
    # The password is unchanged: the user signs in with the new username.
    assert await login_status(client, "new.name", PASSWORD) == 200
    assert await login_status(client, nurse.user.username, PASSWORD) == 401


async def test_update_with_blank_password_keeps_it_and_the_session(
    client: Client, settings: Settings
) -> None:
    admin = await make_admin(settings)
    nurse = await make_staff(settings, Role.NURSE, username="nurse-keep")
    before = (await User.get(id=nurse.user.id)).password_hash
    for extra in ({"password": ""}, {}, {"password": None}):
        response = await client.put(
            f"/api/users/{nurse.user.id}",
            headers=admin.headers,
            json={"name": "Kept", "username": "nurse-keep", "role": "nurse", **extra},
        )
        assert response.status_code == 200, extra
    assert (await User.get(id=nurse.user.id)).password_hash == before
    assert await login_status(client, "nurse-keep", PASSWORD) == 200
    # A name-only change does not sign the user out.
    assert (await client.get("/api/auth/me", headers=nurse.headers)).status_code == 200
    me = await (await client.get("/api/auth/me", headers=nurse.headers)).get_json()
    assert me["user"]["name"] == "Kept"


async def test_update_password_changes_it_and_revokes_sessions(
    client: Client, settings: Settings
) -> None:
    admin = await make_admin(settings)
    nurse = await make_staff(settings, Role.NURSE, username="nurse-pw")
    other_session = await make_staff(settings, Role.DOCTOR)
    response = await client.put(
        f"/api/users/{nurse.user.id}",
        headers=admin.headers,
        json={"name": "N", "username": "nurse-pw", "role": "nurse", "password": "brand-new-pass"},
    )
    assert response.status_code == 200
    assert_no_secrets(await response.get_json())
    assert await error_message(await client.get("/api/auth/me", headers=nurse.headers), 401)
    assert not await Session.filter(user_id=nurse.user.id).exists()
    assert await login_status(client, "nurse-pw", PASSWORD) == 401
    assert await login_status(client, "nurse-pw", "brand-new-pass") == 200
    # Other users and the admin keep their sessions.
    assert (await client.get("/api/auth/me", headers=other_session.headers)).status_code == 200
    assert (await client.get("/api/auth/me", headers=admin.headers)).status_code == 200
    entries = await audit_entries("user_update")
    assert len(entries) == 1 and "password" in entries[0].details
    assert "brand-new-pass" not in entries[0].details


async def test_update_role_revokes_sessions(client: Client, settings: Settings) -> None:
    admin = await make_admin(settings)
    nurse = await make_staff(settings, Role.NURSE)
    response = await client.put(
        f"/api/users/{nurse.user.id}",
        headers=admin.headers,
        json={"name": nurse.user.name, "username": nurse.user.username, "role": "assistant"},
    )
    assert response.status_code == 200
    assert (await response.get_json())["user"]["role"] == "assistant"
    await error_message(await client.get("/api/auth/me", headers=nurse.headers), 401)


async def test_update_short_password_is_400_and_changes_nothing(
    client: Client, settings: Settings
) -> None:
    admin = await make_admin(settings)
    nurse = await make_staff(settings, Role.NURSE, username="nurse-short")
    before = await User.get(id=nurse.user.id)
    response = await client.put(
        f"/api/users/{nurse.user.id}",
        headers=admin.headers,
        json={"name": "Changed", "username": "nurse-short", "role": "doctor", "password": "abc"},
    )
    assert (await error_message(response, 400)).startswith(
        "The password is too short: use at least 12 characters."
    )
    after = await User.get(id=nurse.user.id)
    assert (after.name, after.role, after.password_hash) == (
        before.name,
        before.role,
        before.password_hash,
    )
    assert (await client.get("/api/auth/me", headers=nurse.headers)).status_code == 200
    assert await audit_entries("user_update") == []


async def test_update_username_taken_is_409(client: Client, settings: Settings) -> None:
    admin = await make_admin(settings)
    await make_user(Role.DOCTOR, username="taken")
    nurse = await make_user(Role.NURSE, username="mine")
    response = await client.put(
        f"/api/users/{nurse.id}",
        headers=admin.headers,
        json={"name": "N", "username": "TAKEN", "role": "nurse"},
    )
    assert await error_message(response, 409) == "The username 'taken' is already taken."
    assert (await User.get(id=nurse.id)).username == "mine"
    # Keeping one's own username (in any case) is not a conflict.
    response = await client.put(
        f"/api/users/{nurse.id}",
        headers=admin.headers,
        json={"name": "N", "username": "MINE", "role": "nurse"},
    )
    assert response.status_code == 200


async def test_update_cannot_promote_to_admin(client: Client, settings: Settings) -> None:
    admin = await make_admin(settings)
    nurse = await make_staff(settings, Role.NURSE)
    response = await client.put(
        f"/api/users/{nurse.user.id}",
        headers=admin.headers,
        json={"name": "N", "username": nurse.user.username, "role": "admin"},
    )
    assert await error_message(response, 400) == "Admins can only be created from the command line."
    assert (await User.get(id=nurse.user.id)).role == Role.NURSE
    assert (await client.get("/api/auth/me", headers=nurse.headers)).status_code == 200


async def test_admin_cannot_change_own_role(client: Client, settings: Settings) -> None:
    admin = await make_admin(settings)
    await make_user(Role.ADMIN)  # not the last admin: still refused
    response = await client.put(
        f"/api/users/{admin.user.id}",
        headers=admin.headers,
        json={"name": "Me", "username": admin.user.username, "role": "doctor"},
    )
    assert await error_message(response, 409) == "You cannot change your own role."
    assert (await User.get(id=admin.user.id)).role == Role.ADMIN
    # Editing one's own name keeps the role and the session.
    response = await client.put(
        f"/api/users/{admin.user.id}",
        headers=admin.headers,
        json={"name": "Me", "username": admin.user.username, "role": "admin"},
    )
    assert response.status_code == 200
    assert (await client.get("/api/auth/me", headers=admin.headers)).status_code == 200


async def test_admin_can_demote_another_admin(client: Client, settings: Settings) -> None:
    admin = await make_admin(settings)
    other = await make_staff(settings, Role.ADMIN)
    response = await client.put(
        f"/api/users/{other.user.id}",
        headers=admin.headers,
        json={"name": "Ex Admin", "username": other.user.username, "role": "doctor"},
    )
    assert response.status_code == 200
    assert (await User.get(id=other.user.id)).role == Role.DOCTOR
    await error_message(await client.get("/api/users", headers=other.headers), 401)


async def test_update_validation(client: Client, settings: Settings) -> None:
    admin = await make_admin(settings)
    nurse = await make_user(Role.NURSE, username="nurse-val")
    url = f"/api/users/{nurse.id}"
    good = {"name": "N", "username": "nurse-val", "role": "nurse"}
    for body, field in [
        ({**good, "role": "surgeon"}, "role"),
        ({k: v for k, v in good.items() if k != "role"}, "role"),
        ({k: v for k, v in good.items() if k != "name"}, "name"),
        ({**good, "username": "a b"}, "username"),
        ({**good, "name": ["x"]}, "name"),
        ({**good, "password": 12345678}, "password"),
        ({**good, "password": "x" * 129}, "password"),
    ]:
        message = await error_message(await client.put(url, headers=admin.headers, json=body), 400)
        assert field in message, (body, message)
    h = {**admin.headers, "content-type": "application/json"}
    await error_message(await client.put(url, headers=h, data="{broken"), 400)
    stored = await User.get(id=nurse.id)
    assert stored.name == nurse.name
    assert await audit_entries("user_update") == []
