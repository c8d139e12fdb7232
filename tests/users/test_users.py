"""User management through the API: listing, dashboard, create, edit, delete, and their rules."""

from __future__ import annotations

import json
from typing import Any

from quart.testing import QuartClient as Client

from bff.assignments.models import ContainerAssignment, FolderAssignment
from bff.audit.models import AuditLog
from bff.auth.models import Session
from bff.users.models import Role, User
from bff.users.schemas import UsersResponse
from config.settings import Settings
from tests.factories import (
    PASSWORD,
    StaffMember,
    assign,
    make_container,
    make_folder,
    make_staff,
    make_user,
)

USER_FIELDS = {
    "id",
    "userId",
    "name",
    "username",
    "role",
    "containerAssignments",
    "folderAssignments",
}


def assert_no_secrets(body: Any) -> None:
    """No password or hash anywhere in a response body."""
    text = json.dumps(body).lower()
    assert "password" not in text
    assert "argon2" not in text
    assert PASSWORD not in text


async def _json(response: Any) -> Any:
    body = await response.get_json()
    assert_no_secrets(body)
    return body


async def _error(response: Any, status: int) -> str:
    assert response.status_code == status, await response.get_data(as_text=True)
    body = await response.get_json()
    assert isinstance(body, dict)
    assert isinstance(body["message"], str) and body["message"]
    return str(body["message"])


async def _login(client: Client, username: str, password: str) -> int:
    response = await client.post(
        "/api/auth/login", json={"username": username, "password": password}
    )
    return response.status_code


async def _audit(operation: str) -> list[AuditLog]:
    return await AuditLog.filter(operation=operation).order_by("id")


async def _admin(settings: Settings) -> StaffMember:
    return await make_staff(settings, Role.ADMIN)


def _payload(**overrides: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "name": "Dana Scully",
        "username": "dscully",
        "password": "trust-no-1-ever",
        "role": "doctor",
    }
    data.update(overrides)
    return data


# --- listing --------------------------------------------------------------------------------


async def test_users_list_has_containers_and_folder_counts(
    client: Client, settings: Settings
) -> None:
    admin = await _admin(settings)
    nurse = await make_user(Role.NURSE, name="Nora Nurse")
    ward = await make_container("ward-a")
    ca = await assign(
        nurse, ward, await make_folder(ward, "patient-7"), await make_folder(ward, "p-8")
    )

    response = await client.get("/api/users", headers=admin.headers)
    assert response.status_code == 200
    users = {u["username"]: u for u in (await _json(response))["users"]}
    assert set(users) == {admin.user.username, nurse.username}
    assert users[nurse.username] == {
        "id": nurse.id,
        "userId": nurse.id,
        "name": "Nora Nurse",
        "username": nurse.username,
        "role": "nurse",
        "containerAssignments": [{"id": ca.id, "containerName": "ward-a"}],
        "folderCount": 2,
    }
    assert users[admin.user.username]["containerAssignments"] == []
    assert users[admin.user.username]["folderCount"] == 0


async def test_users_with_assignments_has_every_folder(client: Client, settings: Settings) -> None:
    admin = await _admin(settings)
    nurse = await make_user(Role.NURSE, name='Zoë "Nora" O\'Neil \\ Nurse')
    ward, clinic = await make_container("ward-b"), await make_container("ward-a")
    b1, a2, a1 = (
        await make_folder(ward, "patient-1"),
        await make_folder(clinic, "patient-2"),
        await make_folder(clinic, "patient-1"),
    )
    ca_b = await assign(nurse, ward, b1)
    ca_a = await assign(nurse, clinic, a2, a1)
    fa = {f.folder_id: f.id for f in await FolderAssignment.filter(user=nurse)}

    response = await client.get("/api/users/with-assignments", headers=admin.headers)
    assert response.status_code == 200
    assert response.content_type == "application/json"
    body = await _json(response)
    UsersResponse.model_validate(body)  # written without the model: it must still match it
    users = {u["username"]: u for u in body["users"]}
    assert set(users) == {admin.user.username, nurse.username}
    for user in users.values():
        assert set(user) == USER_FIELDS
        assert user["id"] == user["userId"]
    assert users[nurse.username] == {
        "id": nurse.id,
        "userId": nurse.id,
        "name": 'Zoë "Nora" O\'Neil \\ Nurse',
        "username": nurse.username,
        "role": "nurse",
        "containerAssignments": [
            {"id": ca_a.id, "containerName": "ward-a"},
            {"id": ca_b.id, "containerName": "ward-b"},
        ],
        "folderAssignments": [  # by container, then folder
            {"id": fa[a1.id], "containerName": "ward-a", "folderName": "patient-1"},
            {"id": fa[a2.id], "containerName": "ward-a", "folderName": "patient-2"},
            {"id": fa[b1.id], "containerName": "ward-b", "folderName": "patient-1"},
        ],
    }
    assert users[admin.user.username]["role"] == "admin"
    assert users[admin.user.username]["containerAssignments"] == []
    assert users[admin.user.username]["folderAssignments"] == []


async def test_list_users_sorted_by_name(client: Client, settings: Settings) -> None:
    admin = await make_staff(settings, Role.ADMIN, name="Mia Admin")
    await make_user(Role.DOCTOR, name="Zed Doctor")
    await make_user(Role.NURSE, name="Abe Nurse")
    for path in ("/api/users", "/api/users/with-assignments"):
        response = await client.get(path, headers=admin.headers)
        names = [u["name"] for u in (await response.get_json())["users"]]
        assert names == ["Abe Nurse", "Mia Admin", "Zed Doctor"]


async def test_user_endpoints_are_admin_only(client: Client, settings: Settings) -> None:
    target = await make_user(Role.NURSE)
    for role in (Role.DOCTOR, Role.NURSE, Role.ASSISTANT):
        staff = await make_staff(settings, role)
        h = staff.headers
        calls = [
            client.get("/api/users", headers=h),
            client.get("/api/users/with-assignments", headers=h),
            client.get("/api/users/dashboard", headers=h),
            client.get(f"/api/users/{target.id}", headers=h),
            client.put(f"/api/users/{target.id}", headers=h, json=_payload(role="nurse")),
            client.delete(f"/api/users/{target.id}", headers=h),
            client.post("/api/auth/register", headers=h, json=_payload()),
        ]
        for call in calls:
            response = await call
            assert await _error(response, 403) == "You don't have permission to do this."
    assert await User.filter(id=target.id).exists()
    assert not await User.filter(username="dscully").exists()


async def test_user_endpoints_need_a_session(client: Client) -> None:
    for response in (
        await client.get("/api/users"),
        await client.get("/api/users/dashboard"),
        await client.post("/api/auth/register", json=_payload()),
        await client.get("/api/users", headers={"x-auth-token": "not-a-token"}),
    ):
        await _error(response, 401)


# --- dashboard ------------------------------------------------------------------------------


async def test_dashboard_counts_and_five_most_recent(client: Client, settings: Settings) -> None:
    admin = await _admin(settings)
    created = []
    for role in [Role.DOCTOR, Role.DOCTOR, Role.NURSE, Role.ASSISTANT, Role.DOCTOR, Role.NURSE]:
        created.append(await make_user(role))
    ward = await make_container()
    await assign(created[-1], ward)

    response = await client.get("/api/users/dashboard", headers=admin.headers)
    assert response.status_code == 200
    body = await _json(response)
    assert body["stats"] == {"totalUsers": 7, "doctors": 3, "nurses": 2, "assistants": 1}
    assert [u["id"] for u in body["users"]] == [u.id for u in reversed(created[-5:])]
    assert all(set(u) == USER_FIELDS for u in body["users"])
    assert body["users"][0]["containerAssignments"] == [
        {"id": (await ContainerAssignment.get(user=created[-1])).id, "containerName": ward.name}
    ]


async def test_dashboard_with_only_the_admin(client: Client, settings: Settings) -> None:
    admin = await _admin(settings)
    body = await (await client.get("/api/users/dashboard", headers=admin.headers)).get_json()
    assert body["stats"] == {"totalUsers": 1, "doctors": 0, "nurses": 0, "assistants": 0}
    assert [u["username"] for u in body["users"]] == [admin.user.username]


# --- get one --------------------------------------------------------------------------------


async def test_get_user(client: Client, settings: Settings) -> None:
    admin = await _admin(settings)
    doctor = await make_user(Role.DOCTOR, name="Greg House")
    response = await client.get(f"/api/users/{doctor.id}", headers=admin.headers)
    assert response.status_code == 200
    user = (await _json(response))["user"]
    assert set(user) == USER_FIELDS
    assert (user["id"], user["userId"], user["name"], user["role"]) == (
        doctor.id,
        doctor.id,
        "Greg House",
        "doctor",
    )


async def test_unknown_user_ids_are_404(client: Client, settings: Settings) -> None:
    admin = await _admin(settings)
    gone = await make_user(Role.NURSE)
    missing = gone.id
    await gone.delete()
    h = admin.headers
    for response in (
        await client.get(f"/api/users/{missing}", headers=h),
        await client.put(f"/api/users/{missing}", headers=h, json=_payload(role="nurse")),
        await client.delete(f"/api/users/{missing}", headers=h),
    ):
        assert await _error(response, 404) == "User not found"
    for bad in ("abc", "-1", "1.5"):
        await _error(await client.get(f"/api/users/{bad}", headers=h), 404)


async def test_out_of_range_user_id_is_404_not_500(client: Client, settings: Settings) -> None:
    admin = await _admin(settings)
    h = admin.headers
    huge = 2**31
    for response in (
        await client.get(f"/api/users/{huge}", headers=h),
        await client.put(f"/api/users/{huge}", headers=h, json=_payload(role="nurse")),
        await client.delete(f"/api/users/{huge}", headers=h),
        await client.get(f"/api/users/{10**30}", headers=h),
    ):
        assert await _error(response, 404) == "User not found"


# --- register -------------------------------------------------------------------------------


async def test_register_creates_a_user_who_can_sign_in(client: Client, settings: Settings) -> None:
    admin = await _admin(settings)
    response = await client.post(
        "/api/auth/register",
        headers=admin.headers,
        json=_payload(username="  DScully  ", role="nurse"),
    )
    assert response.status_code == 201
    body = await _json(response)
    assert body["message"] == "User created successfully"
    user = body["user"]
    assert set(user) == USER_FIELDS
    assert user["username"] == "dscully"
    assert user["name"] == "Dana Scully"
    assert user["role"] == "nurse"
    assert user["containerAssignments"] == [] and user["folderAssignments"] == []
    stored = await User.get(id=user["id"])
    assert stored.username == "dscully"
    assert stored.password_hash.startswith("$argon2id$")
    assert await _login(client, "DSCULLY", "trust-no-1-ever") == 200

    entries = await _audit("user_create")
    assert len(entries) == 1
    assert entries[0].user_id == admin.user.id
    assert entries[0].role == "admin"
    assert "user=dscully" in entries[0].details


async def test_register_defaults_to_doctor(client: Client, settings: Settings) -> None:
    admin = await _admin(settings)
    data = _payload()
    del data["role"]
    response = await client.post("/api/auth/register", headers=admin.headers, json=data)
    assert response.status_code == 201
    assert (await response.get_json())["user"]["role"] == "doctor"


async def test_register_refuses_admins(client: Client, settings: Settings) -> None:
    admin = await _admin(settings)
    response = await client.post(
        "/api/auth/register", headers=admin.headers, json=_payload(role="admin")
    )
    message = await _error(response, 400)
    assert "role" in message
    assert not await User.filter(username="dscully").exists()
    assert await _audit("user_create") == []


async def test_register_duplicate_username_is_409_case_insensitive(
    client: Client, settings: Settings
) -> None:
    admin = await _admin(settings)
    await make_user(Role.NURSE, username="dscully", name="First")
    response = await client.post(
        "/api/auth/register", headers=admin.headers, json=_payload(username="DScully")
    )
    message = await _error(response, 409)
    assert message == "The username 'dscully' is already taken."
    assert await User.filter(username="dscully").count() == 1
    assert (await User.get(username="dscully")).name == "First"
    assert await _audit("user_create") == []


async def test_register_validation(client: Client, settings: Settings) -> None:
    admin = await _admin(settings)
    h = admin.headers
    bad_bodies = [
        (_payload(password="short"), "password"),
        (_payload(name=""), "name"),
        (_payload(name="   "), "name"),
        (_payload(username="ab"), "username"),
        (_payload(username="has space"), "username"),
        (_payload(username="x" * 51), "username"),
        (_payload(role="surgeon"), "role"),
        (_payload(name=123), "name"),
        (_payload(password=12345678), "password"),
        ({k: v for k, v in _payload().items() if k != "password"}, "password"),
        ({k: v for k, v in _payload().items() if k != "username"}, "username"),
        ({k: v for k, v in _payload().items() if k != "name"}, "name"),
    ]
    for body, field in bad_bodies:
        response = await client.post("/api/auth/register", headers=h, json=body)
        message = await _error(response, 400)
        assert field in message, (body, message)
    assert await User.all().count() == 1
    assert await _audit("user_create") == []


async def test_register_bad_bodies_are_json_400(client: Client, settings: Settings) -> None:
    admin = await _admin(settings)
    h = {**admin.headers, "content-type": "application/json"}
    for raw in ("{not json", "", "[]", '"text"', "null", "42"):
        response = await client.post("/api/auth/register", headers=h, data=raw)
        await _error(response, 400)
    response = await client.post("/api/auth/register", headers=admin.headers, data="name=x")
    assert 400 <= response.status_code < 500
    assert (await response.get_json())["message"]
    assert await User.all().count() == 1


async def test_register_oversized_body_is_413(client: Client, settings: Settings) -> None:
    admin = await _admin(settings)
    response = await client.post(
        "/api/auth/register", headers=admin.headers, json=_payload(name="x" * (2 * 1024 * 1024))
    )
    await _error(response, 413)
    assert await User.all().count() == 1


# --- update ---------------------------------------------------------------------------------


async def test_update_name_username_role(client: Client, settings: Settings) -> None:
    admin = await _admin(settings)
    nurse = await make_staff(settings, Role.NURSE)
    response = await client.put(
        f"/api/users/{nurse.user.id}",
        headers=admin.headers,
        json={"name": "  Renamed  ", "username": "New.Name", "role": "doctor"},
    )
    assert response.status_code == 200
    user = (await _json(response))["user"]
    assert set(user) == USER_FIELDS
    assert (user["name"], user["username"], user["role"]) == ("Renamed", "new.name", "doctor")
    stored = await User.get(id=nurse.user.id)
    assert (stored.name, stored.username, stored.role) == ("Renamed", "new.name", Role.DOCTOR)
    entries = await _audit("user_update")
    assert len(entries) == 1
    assert entries[0].user_id == admin.user.id
    assert "user=new.name" in entries[0].details
    assert "role" in entries[0].details
    # The password is unchanged: the user signs in with the new username.
    assert await _login(client, "new.name", PASSWORD) == 200
    assert await _login(client, nurse.user.username, PASSWORD) == 401


async def test_update_with_blank_password_keeps_it_and_the_session(
    client: Client, settings: Settings
) -> None:
    admin = await _admin(settings)
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
    assert await _login(client, "nurse-keep", PASSWORD) == 200
    # A name-only change does not sign the user out.
    assert (await client.get("/api/auth/me", headers=nurse.headers)).status_code == 200
    me = await (await client.get("/api/auth/me", headers=nurse.headers)).get_json()
    assert me["user"]["name"] == "Kept"


async def test_update_password_changes_it_and_revokes_sessions(
    client: Client, settings: Settings
) -> None:
    admin = await _admin(settings)
    nurse = await make_staff(settings, Role.NURSE, username="nurse-pw")
    other_session = await make_staff(settings, Role.DOCTOR)
    response = await client.put(
        f"/api/users/{nurse.user.id}",
        headers=admin.headers,
        json={"name": "N", "username": "nurse-pw", "role": "nurse", "password": "brand-new-pass"},
    )
    assert response.status_code == 200
    assert_no_secrets(await response.get_json())
    assert await _error(await client.get("/api/auth/me", headers=nurse.headers), 401)
    assert not await Session.filter(user_id=nurse.user.id).exists()
    assert await _login(client, "nurse-pw", PASSWORD) == 401
    assert await _login(client, "nurse-pw", "brand-new-pass") == 200
    # Other users and the admin keep their sessions.
    assert (await client.get("/api/auth/me", headers=other_session.headers)).status_code == 200
    assert (await client.get("/api/auth/me", headers=admin.headers)).status_code == 200
    entries = await _audit("user_update")
    assert len(entries) == 1 and "password" in entries[0].details
    assert "brand-new-pass" not in entries[0].details


async def test_update_role_revokes_sessions(client: Client, settings: Settings) -> None:
    admin = await _admin(settings)
    nurse = await make_staff(settings, Role.NURSE)
    response = await client.put(
        f"/api/users/{nurse.user.id}",
        headers=admin.headers,
        json={"name": nurse.user.name, "username": nurse.user.username, "role": "assistant"},
    )
    assert response.status_code == 200
    assert (await response.get_json())["user"]["role"] == "assistant"
    await _error(await client.get("/api/auth/me", headers=nurse.headers), 401)


async def test_update_short_password_is_400_and_changes_nothing(
    client: Client, settings: Settings
) -> None:
    admin = await _admin(settings)
    nurse = await make_staff(settings, Role.NURSE, username="nurse-short")
    before = await User.get(id=nurse.user.id)
    response = await client.put(
        f"/api/users/{nurse.user.id}",
        headers=admin.headers,
        json={"name": "Changed", "username": "nurse-short", "role": "doctor", "password": "abc"},
    )
    assert await _error(response, 400) == "Password must be at least 8 characters."
    after = await User.get(id=nurse.user.id)
    assert (after.name, after.role, after.password_hash) == (
        before.name,
        before.role,
        before.password_hash,
    )
    assert (await client.get("/api/auth/me", headers=nurse.headers)).status_code == 200
    assert await _audit("user_update") == []


async def test_update_username_taken_is_409(client: Client, settings: Settings) -> None:
    admin = await _admin(settings)
    await make_user(Role.DOCTOR, username="taken")
    nurse = await make_user(Role.NURSE, username="mine")
    response = await client.put(
        f"/api/users/{nurse.id}",
        headers=admin.headers,
        json={"name": "N", "username": "TAKEN", "role": "nurse"},
    )
    assert await _error(response, 409) == "The username 'taken' is already taken."
    assert (await User.get(id=nurse.id)).username == "mine"
    # Keeping one's own username (in any case) is not a conflict.
    response = await client.put(
        f"/api/users/{nurse.id}",
        headers=admin.headers,
        json={"name": "N", "username": "MINE", "role": "nurse"},
    )
    assert response.status_code == 200


async def test_update_cannot_promote_to_admin(client: Client, settings: Settings) -> None:
    admin = await _admin(settings)
    nurse = await make_staff(settings, Role.NURSE)
    response = await client.put(
        f"/api/users/{nurse.user.id}",
        headers=admin.headers,
        json={"name": "N", "username": nurse.user.username, "role": "admin"},
    )
    assert await _error(response, 400) == "Admins can only be created from the command line."
    assert (await User.get(id=nurse.user.id)).role == Role.NURSE
    assert (await client.get("/api/auth/me", headers=nurse.headers)).status_code == 200


async def test_admin_cannot_change_own_role(client: Client, settings: Settings) -> None:
    admin = await _admin(settings)
    await make_user(Role.ADMIN)  # not the last admin: still refused
    response = await client.put(
        f"/api/users/{admin.user.id}",
        headers=admin.headers,
        json={"name": "Me", "username": admin.user.username, "role": "doctor"},
    )
    assert await _error(response, 409) == "You cannot change your own role."
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
    admin = await _admin(settings)
    other = await make_staff(settings, Role.ADMIN)
    response = await client.put(
        f"/api/users/{other.user.id}",
        headers=admin.headers,
        json={"name": "Ex Admin", "username": other.user.username, "role": "doctor"},
    )
    assert response.status_code == 200
    assert (await User.get(id=other.user.id)).role == Role.DOCTOR
    await _error(await client.get("/api/users", headers=other.headers), 401)


async def test_update_validation(client: Client, settings: Settings) -> None:
    admin = await _admin(settings)
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
        message = await _error(await client.put(url, headers=admin.headers, json=body), 400)
        assert field in message, (body, message)
    h = {**admin.headers, "content-type": "application/json"}
    await _error(await client.put(url, headers=h, data="{broken"), 400)
    stored = await User.get(id=nurse.id)
    assert stored.name == nurse.name
    assert await _audit("user_update") == []


# --- delete ---------------------------------------------------------------------------------


async def test_delete_user_removes_sessions_and_assignments(
    client: Client, settings: Settings
) -> None:
    admin = await _admin(settings)
    nurse = await make_staff(settings, Role.NURSE, name="Nina Nurse")
    bystander = await make_staff(settings, Role.DOCTOR)
    ward = await make_container()
    f1, f2 = await make_folder(ward, "patient-1"), await make_folder(ward, "patient-2")
    await assign(nurse.user, ward, f1, f2)
    await assign(bystander.user, ward, f1)

    response = await client.delete(f"/api/users/{nurse.user.id}", headers=admin.headers)
    assert response.status_code == 200
    assert await response.get_json() == {"message": "User Nina Nurse deleted successfully"}

    assert not await User.filter(id=nurse.user.id).exists()
    assert not await ContainerAssignment.filter(user_id=nurse.user.id).exists()
    assert not await FolderAssignment.filter(user_id=nurse.user.id).exists()
    assert not await Session.filter(user_id=nurse.user.id).exists()
    await _error(await client.get("/api/auth/me", headers=nurse.headers), 401)
    # The bystander's access, the container and folders are untouched.
    assert await ContainerAssignment.filter(user_id=bystander.user.id).count() == 1
    assert await FolderAssignment.filter(user_id=bystander.user.id).count() == 1
    assert (await client.get("/api/auth/me", headers=bystander.headers)).status_code == 200
    response = await client.get(f"/api/users/{nurse.user.id}", headers=admin.headers)
    await _error(response, 404)

    entries = await _audit("user_delete")
    assert len(entries) == 1
    assert entries[0].user_id == admin.user.id
    assert f"user={nurse.user.username}" in entries[0].details
    assert "containers=1" in entries[0].details and "folders=2" in entries[0].details


async def test_admin_cannot_delete_themself(client: Client, settings: Settings) -> None:
    admin = await _admin(settings)
    await make_user(Role.ADMIN)
    response = await client.delete(f"/api/users/{admin.user.id}", headers=admin.headers)
    assert await _error(response, 409) == "You cannot delete your own account."
    assert await User.filter(id=admin.user.id).exists()
    assert (await client.get("/api/auth/me", headers=admin.headers)).status_code == 200
    assert await _audit("user_delete") == []


async def test_admin_can_delete_another_admin_but_never_the_last(
    client: Client, settings: Settings
) -> None:
    admin = await _admin(settings)
    other = await make_staff(settings, Role.ADMIN)
    response = await client.delete(f"/api/users/{other.user.id}", headers=admin.headers)
    assert response.status_code == 200
    await _error(await client.get("/api/auth/me", headers=other.headers), 401)
    # Now the caller is the last admin: deleting themself is still refused.
    response = await client.delete(f"/api/users/{admin.user.id}", headers=admin.headers)
    await _error(response, 409)
    assert await User.filter(role=Role.ADMIN).count() == 1
