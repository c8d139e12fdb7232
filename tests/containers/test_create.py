"""Admin creation of containers and folders: /api/admin/containers*."""

from __future__ import annotations

import secrets

from quart.testing import QuartClient as Client

from bff.audit.models import AuditLog
from bff.containers.models import Container, Folder
from bff.users.models import Role
from config.settings import Settings
from tests.factories import assign, make_container, make_folder, make_staff
from tests.helpers import error_message

CONTAINER_RULE = (
    "Container names are 3 to 63 characters of lower-case letters, digits and single "
    "hyphens, starting and ending with a letter or digit."
)
FOLDER_RULE = "Folder names are 1 to 100 letters, digits, '-', '_' or '.', and not '.' or '..'."


# --- containers -----------------------------------------------------------------------------


async def test_create_container(client: Client, settings: Settings) -> None:
    admin = await make_staff(settings, Role.ADMIN)
    response = await client.post(
        "/api/admin/containers", headers=admin.headers, json={"name": "ward-10"}
    )
    assert response.status_code == 201
    assert await response.get_json() == {
        "message": "Container created successfully",
        "containerName": "ward-10",
    }
    container = await Container.get(name="ward-10")
    assert (container.sort_prefix, container.sort_number) == ("ward-", 10)
    entries = await AuditLog.filter(operation="container_create")
    assert [(e.container_name, e.user_id) for e in entries] == [("ward-10", admin.user.id)]
    listed = await client.get("/api/assignments/containers", headers=admin.headers)
    assert (await listed.get_json())["containers"] == ["ward-10"]


async def test_create_container_boundaries_accepted(client: Client, settings: Settings) -> None:
    admin = await make_staff(settings, Role.ADMIN)
    for name in ("abc", "a" * 63, "1-2", "a1-b2-c3", "123"):
        response = await client.post(
            "/api/admin/containers", headers=admin.headers, json={"name": name}
        )
        assert response.status_code == 201, name
    assert await Container.all().count() == 5


async def test_create_container_invalid_names_are_400(client: Client, settings: Settings) -> None:
    admin = await make_staff(settings, Role.ADMIN)
    for name in (
        "",
        "ab",
        "a" * 64,
        "Ward-1",
        "ward_1",
        "ward.1",
        "ward--1",
        "-ward",
        "ward-",
        "wärd",
        "ward 1",
        "ward/1",
        "../etc",
    ):
        response = await client.post(
            "/api/admin/containers", headers=admin.headers, json={"name": name}
        )
        assert await error_message(response, 400) == CONTAINER_RULE, name
    assert await Container.all().count() == 0
    assert await AuditLog.all().count() == 0


async def test_create_container_bad_bodies_are_400(client: Client, settings: Settings) -> None:
    admin = await make_staff(settings, Role.ADMIN)
    for body in ({}, {"name": 123}, {"name": None}, {"name": ["ward-1"]}, {"name": "a" * 201}):
        message = await error_message(
            await client.post("/api/admin/containers", headers=admin.headers, json=body), 400
        )
        assert "name" in message, (body, message)
    h = {**admin.headers, "content-type": "application/json"}
    for raw in ("{nope", "[]", '"ward-1"'):
        await error_message(await client.post("/api/admin/containers", headers=h, data=raw), 400)
    assert await Container.all().count() == 0


async def test_create_existing_container_is_409(client: Client, settings: Settings) -> None:
    admin = await make_staff(settings, Role.ADMIN)
    await make_container("ward-1")
    response = await client.post(
        "/api/admin/containers", headers=admin.headers, json={"name": "ward-1"}
    )
    assert await error_message(response, 409) == "Container 'ward-1' already exists."
    assert await Container.filter(name="ward-1").count() == 1
    assert await AuditLog.all().count() == 0


# --- folders --------------------------------------------------------------------------------


async def test_create_folder(client: Client, settings: Settings) -> None:
    admin = await make_staff(settings, Role.ADMIN)
    ward = await make_container("ward-2")
    response = await client.post(
        "/api/admin/containers/ward-2/folders", headers=admin.headers, json={"name": "Patient-12"}
    )
    assert response.status_code == 201
    assert await response.get_json() == {
        "message": "Folder created successfully",
        "containerName": "ward-2",
        "folderName": "Patient-12",
    }
    folder = await Folder.get(container=ward, name="Patient-12")
    assert (folder.sort_prefix, folder.sort_number) == ("patient-", 12)
    entries = await AuditLog.filter(operation="folder_create")
    assert [(e.container_name, e.folder_name, e.user_id) for e in entries] == [
        ("ward-2", "Patient-12", admin.user.id)
    ]


async def test_create_folder_boundaries_accepted(client: Client, settings: Settings) -> None:
    admin = await make_staff(settings, Role.ADMIN)
    ward = await make_container()
    for name in ("a", "Z" * 100, "...", ".hidden", "a.b_c-D9", "_", "-", "007"):
        response = await client.post(
            f"/api/admin/containers/{ward.name}/folders", headers=admin.headers, json={"name": name}
        )
        assert response.status_code == 201, name
    assert await Folder.filter(container=ward).count() == 8


async def test_create_folder_invalid_names_are_400(client: Client, settings: Settings) -> None:
    admin = await make_staff(settings, Role.ADMIN)
    ward = await make_container()
    for name in ("", ".", "..", "a" * 101, "a/b", "a\\b", "pat ient", "pätient", "a:b", "%"):
        response = await client.post(
            f"/api/admin/containers/{ward.name}/folders", headers=admin.headers, json={"name": name}
        )
        assert await error_message(response, 400) == FOLDER_RULE, name
    for body in ({}, {"name": 5}, {"name": "a" * 201}):
        response = await client.post(
            f"/api/admin/containers/{ward.name}/folders", headers=admin.headers, json=body
        )
        assert "name" in await error_message(response, 400)
    assert await Folder.all().count() == 0
    assert await AuditLog.all().count() == 0


async def test_create_existing_folder_is_409_but_same_name_elsewhere_is_fine(
    client: Client, settings: Settings
) -> None:
    admin = await make_staff(settings, Role.ADMIN)
    ward, other = await make_container("ward-3"), await make_container("ward-4")
    await make_folder(ward, "patient-1")
    response = await client.post(
        "/api/admin/containers/ward-3/folders", headers=admin.headers, json={"name": "patient-1"}
    )
    assert await error_message(response, 409) == "Folder 'patient-1' already exists in 'ward-3'."
    response = await client.post(
        "/api/admin/containers/ward-4/folders", headers=admin.headers, json={"name": "patient-1"}
    )
    assert response.status_code == 201
    assert await Folder.filter(name="patient-1").count() == 2
    assert await Folder.filter(container=other).count() == 1


async def test_create_folder_in_unknown_container_is_404(
    client: Client, settings: Settings
) -> None:
    admin = await make_staff(settings, Role.ADMIN)
    response = await client.post(
        "/api/admin/containers/ghost-ward/folders", headers=admin.headers, json={"name": "p-1"}
    )
    assert await error_message(response, 404) == "Container not found"
    assert await Folder.all().count() == 0


# --- permissions ----------------------------------------------------------------------------


async def test_creation_is_admin_only(client: Client, settings: Settings) -> None:
    ward = await make_container()
    for role in (Role.DOCTOR, Role.NURSE, Role.ASSISTANT):
        staff = await make_staff(settings, role)
        await assign(staff.user, ward)
        response = await client.post(
            "/api/admin/containers", headers=staff.headers, json={"name": f"new-{role.value}"}
        )
        assert await error_message(response, 403) == "You don't have permission to do this."
        response = await client.post(
            f"/api/admin/containers/{ward.name}/folders",
            headers=staff.headers,
            json={"name": "patient-1"},
        )
        assert await error_message(response, 403) == "You don't have permission to do this."
    await error_message(await client.post("/api/admin/containers", json={"name": "anon-ward"}), 401)
    assert await Container.all().count() == 1
    assert await Folder.all().count() == 0


async def test_created_containers_and_folders_exist_in_storage(
    client: Client, settings: Settings
) -> None:
    from storage import open_storage

    admin = await make_staff(settings, Role.ADMIN)
    name = "stored-" + secrets.token_hex(3)
    created = await client.post("/api/admin/containers", json={"name": name}, headers=admin.headers)
    assert created.status_code == 201
    folder = await client.post(
        f"/api/admin/containers/{name}/folders", json={"name": "patient-7"}, headers=admin.headers
    )
    assert folder.status_code == 201
    async with open_storage(settings.storage_url) as storage:
        assert name in await storage.list_containers()
        assert await storage.list_folders(name) == ["patient-7"]


async def test_storage_down_is_503_and_nothing_is_recorded(database_url: str, run_dir) -> None:
    import shutil

    from tests.conftest import make_settings, started_app

    root = run_dir / ("flaky-" + secrets.token_hex(3))
    settings = make_settings(database_url, run_dir, storage_url=f"file://{root}")
    async with started_app(settings) as app:
        shutil.rmtree(root, ignore_errors=True)  # the disk goes away while serving
        root.write_text("a file where the storage root should be")
        admin = await make_staff(settings, Role.ADMIN)
        response = await app.test_client().post(
            "/api/admin/containers", json={"name": "never-made"}, headers=admin.headers
        )
        assert response.status_code == 503
        assert "storage" in (await response.get_json())["message"].lower()
        assert not await Container.exists(name="never-made")
