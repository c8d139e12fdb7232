"""Assigning containers and folders to a user, their refusals, and their audit."""

from __future__ import annotations

from quart.testing import QuartClient as Client

from bff.assignments.models import ContainerAssignment, FolderAssignment
from bff.users.models import Role
from config.settings import Settings
from tests.factories import (
    assign,
    make_container,
    make_folder,
    make_folders,
    make_staff,
    make_user,
    unknown_user_id,
)
from tests.helpers import audit_entries, error_message

# --- assigning a container ------------------------------------------------------------------


async def test_assign_container(client: Client, settings: Settings) -> None:
    admin = await make_staff(settings, Role.ADMIN)
    nurse = await make_staff(settings, Role.NURSE)
    ward = await make_container("ward-7")
    response = await client.post(
        f"/api/assignments/containers/ward-7/users/{nurse.user.id}", headers=admin.headers
    )
    assert response.status_code == 201
    body = await response.get_json()
    row = await ContainerAssignment.get(user_id=nurse.user.id, container_id=ward.id)
    assert body == {
        "message": "Container assigned successfully",
        "assignment": {"id": row.id, "containerName": "ward-7"},
    }
    entries = await audit_entries("container_assign")
    assert len(entries) == 1
    assert entries[0].user_id == admin.user.id
    assert entries[0].container_name == "ward-7"
    assert f"user={nurse.user.username}" in entries[0].details
    # The nurse now sees the container.
    listed = await client.get("/api/assignments/containers", headers=nurse.headers)
    assert (await listed.get_json())["containers"] == ["ward-7"]


async def test_assign_container_twice_is_409(client: Client, settings: Settings) -> None:
    admin = await make_staff(settings, Role.ADMIN)
    nurse = await make_user(Role.NURSE, name="Nell")
    ward = await make_container("ward-dup")
    await assign(nurse, ward)
    response = await client.post(
        f"/api/assignments/containers/ward-dup/users/{nurse.id}", headers=admin.headers
    )
    assert await error_message(response, 409) == "Container 'ward-dup' is already assigned to Nell."
    assert await ContainerAssignment.filter(user_id=nurse.id).count() == 1
    assert await audit_entries("container_assign") == []


async def test_assign_container_unknown_container_or_user(
    client: Client, settings: Settings
) -> None:
    admin = await make_staff(settings, Role.ADMIN)
    nurse = await make_user(Role.NURSE)
    ward = await make_container()
    response = await client.post(
        f"/api/assignments/containers/missing-ward/users/{nurse.id}", headers=admin.headers
    )
    assert await error_message(response, 404) == "Container not found"
    response = await client.post(
        f"/api/assignments/containers/{ward.name}/users/{await unknown_user_id()}",
        headers=admin.headers,
    )
    assert await error_message(response, 404) == "User not found"
    for user_id in (2**31, 10**25):  # beyond the id column: no such user
        response = await client.post(
            f"/api/assignments/containers/{ward.name}/users/{user_id}", headers=admin.headers
        )
        assert await error_message(response, 404) == "User not found"
    response = await client.post(
        f"/api/assignments/containers/{ward.name}/users/abc", headers=admin.headers
    )
    await error_message(response, 404)
    assert await ContainerAssignment.all().count() == 0
    assert await audit_entries("container_assign") == []


# --- assigning folders ----------------------------------------------------------------------


async def test_assign_folders(client: Client, settings: Settings) -> None:
    admin = await make_staff(settings, Role.ADMIN)
    doctor = await make_staff(settings, Role.DOCTOR)
    ward = await make_container("ward-f")
    await make_folders(ward, "patient-1", "patient-2", "patient-10", "patient-11")
    await assign(doctor.user, ward)
    response = await client.post(
        "/api/assignments/containers/ward-f/folders",
        headers=admin.headers,
        json={"userId": doctor.user.id, "folderNames": ["patient-10", "patient-2", "patient-10"]},
    )
    assert response.status_code == 201
    body = await response.get_json()
    assert body["message"] == "Folders assigned successfully"
    assert body["alreadyAssigned"] == []
    assert [(a["containerName"], a["folderName"]) for a in body["assigned"]] == [
        ("ward-f", "patient-2"),
        ("ward-f", "patient-10"),
    ]
    rows = await FolderAssignment.filter(user_id=doctor.user.id).prefetch_related("folder")
    assert {r.id: r.folder.name for r in rows} == {
        a["id"]: a["folderName"] for a in body["assigned"]
    }
    entries = await audit_entries("folder_assign")
    assert [(e.container_name, e.folder_name) for e in entries] == [
        ("ward-f", "patient-2"),
        ("ward-f", "patient-10"),
    ]
    assert all(e.user_id == admin.user.id for e in entries)
    assert all(f"user={doctor.user.username}" in e.details for e in entries)

    # The doctor now sees exactly those folders.
    listed = await client.get("/api/assignments/containers/ward-f/folders", headers=doctor.headers)
    assert (await listed.get_json())["folders"] == ["patient-2", "patient-10"]

    # Adding more reports the ones already held and creates only the new ones.
    response = await client.post(
        "/api/assignments/containers/ward-f/folders",
        headers=admin.headers,
        json={"userId": doctor.user.id, "folderNames": ["patient-2", "patient-11", "patient-10"]},
    )
    assert response.status_code == 201
    body = await response.get_json()
    assert [a["folderName"] for a in body["assigned"]] == ["patient-11"]
    assert body["alreadyAssigned"] == ["patient-2", "patient-10"]
    assert await FolderAssignment.filter(user_id=doctor.user.id).count() == 3
    assert len(await audit_entries("folder_assign")) == 3


async def test_assign_folders_needs_the_container_first(client: Client, settings: Settings) -> None:
    admin = await make_staff(settings, Role.ADMIN)
    nurse = await make_user(Role.NURSE, name="Nia")
    ward = await make_container("ward-g")
    await make_folder(ward, "patient-1")
    # Having another container does not count.
    await assign(nurse, await make_container())
    response = await client.post(
        "/api/assignments/containers/ward-g/folders",
        headers=admin.headers,
        json={"userId": nurse.id, "folderNames": ["patient-1"]},
    )
    message = await error_message(response, 409)
    assert message == "Assign container 'ward-g' to Nia before assigning its folders."
    assert await FolderAssignment.all().count() == 0
    assert await audit_entries("folder_assign") == []


async def test_assign_folders_unknown_folder_writes_nothing(
    client: Client, settings: Settings
) -> None:
    admin = await make_staff(settings, Role.ADMIN)
    nurse = await make_user(Role.NURSE)
    ward = await make_container("ward-h")
    elsewhere = await make_container("ward-i")
    await make_folders(ward, "patient-1")
    await make_folders(elsewhere, "patient-9")
    await assign(nurse, ward)
    response = await client.post(
        "/api/assignments/containers/ward-h/folders",
        headers=admin.headers,
        json={"userId": nurse.id, "folderNames": ["patient-1", "patient-9", "ghost"]},
    )
    message = await error_message(response, 404)
    assert message == "Folders not found in 'ward-h': ghost, patient-9"
    assert await FolderAssignment.all().count() == 0
    assert await audit_entries("folder_assign") == []


async def test_assign_folders_unknown_container_or_user(client: Client, settings: Settings) -> None:
    admin = await make_staff(settings, Role.ADMIN)
    nurse = await make_user(Role.NURSE)
    ward = await make_container()
    await make_folder(ward, "patient-1")
    response = await client.post(
        "/api/assignments/containers/not-here/folders",
        headers=admin.headers,
        json={"userId": nurse.id, "folderNames": ["patient-1"]},
    )
    assert await error_message(response, 404) == "Container not found"
    response = await client.post(
        f"/api/assignments/containers/{ward.name}/folders",
        headers=admin.headers,
        json={"userId": await unknown_user_id(), "folderNames": ["patient-1"]},
    )
    assert await error_message(response, 404) == "User not found"
    for user_id in (0, -5, 2**31, 10**25):  # outside the id range: a bad request
        response = await client.post(
            f"/api/assignments/containers/{ward.name}/folders",
            headers=admin.headers,
            json={"userId": user_id, "folderNames": ["patient-1"]},
        )
        assert "userId" in await error_message(response, 400), user_id


async def test_assign_folders_bad_bodies_are_400(client: Client, settings: Settings) -> None:
    admin = await make_staff(settings, Role.ADMIN)
    nurse = await make_user(Role.NURSE)
    ward = await make_container()
    await make_folder(ward, "patient-1")
    await assign(nurse, ward)
    url = f"/api/assignments/containers/{ward.name}/folders"
    for body, field in [
        ({"userId": nurse.id, "folderNames": []}, "folderNames"),
        ({"userId": nurse.id}, "folderNames"),
        ({"folderNames": ["patient-1"]}, "userId"),
        ({"userId": "abc", "folderNames": ["patient-1"]}, "userId"),
        ({"userId": nurse.id, "folderNames": "patient-1"}, "folderNames"),
        ({"userId": nurse.id, "folderNames": [1, 2]}, "folderNames"),
        ({"userId": nurse.id, "folderNames": ["x" * 201]}, "folderNames"),
    ]:
        message = await error_message(await client.post(url, headers=admin.headers, json=body), 400)
        assert field in message, (body, message)
    h = {**admin.headers, "content-type": "application/json"}
    for raw in ("{oops", "[]", "null"):
        await error_message(await client.post(url, headers=h, data=raw), 400)
    assert await FolderAssignment.all().count() == 0
