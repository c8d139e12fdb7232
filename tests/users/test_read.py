"""Reading users through the API: the lists, the dashboard and one user."""

from __future__ import annotations

from quart.testing import QuartClient as Client

from bff.assignments.models import ContainerAssignment, FolderAssignment
from bff.users.models import Role
from bff.users.schemas import UsersResponse
from config.settings import Settings
from tests.factories import assign, make_container, make_folder, make_staff, make_user
from tests.users.helpers import USER_DETAIL_FIELDS, USER_FIELDS, json_body, make_admin

# --- listing --------------------------------------------------------------------------------


async def test_users_list_has_containers_and_folder_counts(
    client: Client, settings: Settings
) -> None:
    admin = await make_admin(settings)
    nurse = await make_user(Role.NURSE, name="Nora Nurse")
    ward = await make_container("ward-a")
    ca = await assign(
        nurse, ward, await make_folder(ward, "patient-7"), await make_folder(ward, "p-8")
    )

    response = await client.get("/api/users", headers=admin.headers)
    assert response.status_code == 200
    users = {u["username"]: u for u in (await json_body(response))["users"]}
    assert set(users) == {admin.user.username, nurse.username}
    assert users[nurse.username] == {
        "id": nurse.id,
        "userId": nurse.id,
        "name": "Nora Nurse",
        "username": nurse.username,
        "role": "nurse",
        "containerAssignments": [{"id": ca.id, "containerName": "ward-a"}],
        "folderCount": 2,
        "secondFactor": False,
        "intake": False,
    }
    assert users[admin.user.username]["containerAssignments"] == []
    assert users[admin.user.username]["folderCount"] == 0


async def test_users_with_assignments_has_every_folder(client: Client, settings: Settings) -> None:
    admin = await make_admin(settings)
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
    body = await json_body(response)
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


# --- dashboard ------------------------------------------------------------------------------


async def test_dashboard_counts_and_the_first_five_of_the_users_list(
    client: Client, settings: Settings
) -> None:
    """Spec section 2: "a Recent Users table of the first 5 users", in the users list's order
    (by name), whenever each was created."""
    admin = await make_admin(settings)
    created = []
    roles = [Role.DOCTOR, Role.DOCTOR, Role.NURSE, Role.ASSISTANT, Role.DOCTOR, Role.NURSE]
    for role, name in zip(roles, ["Zoe", "Yan", "Abe", "Cal", "Bea", "Dot"], strict=True):
        created.append(await make_user(role, name=f"{name} Staff"))
    ward = await make_container()
    await assign(created[2], ward)

    response = await client.get("/api/users/dashboard", headers=admin.headers)
    assert response.status_code == 200
    body = await json_body(response)
    assert body["stats"] == {"totalUsers": 7, "doctors": 3, "nurses": 2, "assistants": 1}
    listed = await json_body(await client.get("/api/users", headers=admin.headers))
    first_five = [u["id"] for u in listed["users"]][:5]
    assert [u["id"] for u in body["users"]] == first_five
    assert [u["name"] for u in body["users"]][:4] == [
        "Abe Staff",
        "Bea Staff",
        "Cal Staff",
        "Dot Staff",
    ]
    assert all(set(u) == USER_FIELDS for u in body["users"])
    assert body["users"][0]["containerAssignments"] == [
        {"id": (await ContainerAssignment.get(user=created[2])).id, "containerName": ward.name}
    ]


async def test_dashboard_with_only_the_admin(client: Client, settings: Settings) -> None:
    admin = await make_admin(settings)
    body = await (await client.get("/api/users/dashboard", headers=admin.headers)).get_json()
    assert body["stats"] == {"totalUsers": 1, "doctors": 0, "nurses": 0, "assistants": 0}
    assert [u["username"] for u in body["users"]] == [admin.user.username]


# --- get one --------------------------------------------------------------------------------


async def test_get_user(client: Client, settings: Settings) -> None:
    admin = await make_admin(settings)
    doctor = await make_user(Role.DOCTOR, name="Greg House")
    response = await client.get(f"/api/users/{doctor.id}", headers=admin.headers)
    assert response.status_code == 200
    user = (await json_body(response))["user"]
    assert set(user) == USER_DETAIL_FIELDS
    assert (user["id"], user["userId"], user["name"], user["role"]) == (
        doctor.id,
        doctor.id,
        "Greg House",
        "doctor",
    )
