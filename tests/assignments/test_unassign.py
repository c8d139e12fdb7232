"""Unassigning containers (with their folders) and folders, access lost at once, the audit."""

from __future__ import annotations

from quart.testing import QuartClient as Client

from bff.assignments.models import ContainerAssignment, FolderAssignment
from bff.audit.models import AuditLog
from bff.users.models import Role
from config.settings import Settings
from tests.factories import assign, make_container, make_folder, make_staff, make_user
from tests.helpers import audit_entries, error_message


async def test_unassign_container_takes_its_folders_along(
    client: Client, settings: Settings
) -> None:
    admin = await make_staff(settings, Role.ADMIN)
    nurse = await make_staff(settings, Role.NURSE)
    colleague = await make_user(Role.DOCTOR)
    ward, other_ward = await make_container("ward-x"), await make_container("ward-y")
    f1, f2 = await make_folder(ward, "patient-1"), await make_folder(ward, "patient-2")
    g1 = await make_folder(other_ward, "patient-1")
    ca = await assign(nurse.user, ward, f1, f2)
    await assign(nurse.user, other_ward, g1)
    await assign(colleague, ward, f1)

    response = await client.delete(
        f"/api/assignments/{ca.id}", headers=admin.headers, query_string={"type": "container"}
    )
    assert response.status_code == 200
    assert await response.get_json() == {"message": "Container unassigned successfully"}
    assert not await ContainerAssignment.filter(id=ca.id).exists()
    remaining = await FolderAssignment.filter(user_id=nurse.user.id).prefetch_related(
        "folder__container"
    )
    assert [(r.folder.container.name, r.folder.name) for r in remaining] == [
        ("ward-y", "patient-1")
    ]
    assert await ContainerAssignment.filter(user_id=nurse.user.id).count() == 1
    assert await FolderAssignment.filter(user=colleague).count() == 1
    assert await ContainerAssignment.filter(user=colleague).count() == 1

    entries = await audit_entries("container_unassign")
    assert len(entries) == 1
    assert entries[0].user_id == admin.user.id
    assert entries[0].container_name == "ward-x"
    assert f"user={nurse.user.username}" in entries[0].details
    assert "folders=2" in entries[0].details

    # The nurse has lost access at once.
    response = await client.get("/api/assignments/containers/ward-x/folders", headers=nurse.headers)
    await error_message(response, 404)
    body = await (await client.get("/api/assignments/containers", headers=nurse.headers)).get_json()
    assert body["containers"] == ["ward-y"]


async def test_unassign_folder(client: Client, settings: Settings) -> None:
    admin = await make_staff(settings, Role.ADMIN)
    nurse = await make_staff(settings, Role.NURSE)
    ward = await make_container("ward-z")
    f1, f2 = await make_folder(ward, "patient-1"), await make_folder(ward, "patient-2")
    await assign(nurse.user, ward, f1, f2)
    fa = await FolderAssignment.get(user_id=nurse.user.id, folder_id=f1.id)
    response = await client.delete(
        f"/api/assignments/{fa.id}", headers=admin.headers, query_string={"type": "folder"}
    )
    assert response.status_code == 200
    assert await response.get_json() == {"message": "Folder unassigned successfully"}
    assert not await FolderAssignment.filter(id=fa.id).exists()
    assert await FolderAssignment.filter(user_id=nurse.user.id).count() == 1
    assert await ContainerAssignment.filter(user_id=nurse.user.id).count() == 1
    entries = await audit_entries("folder_unassign")
    assert [(e.container_name, e.folder_name, e.user_id) for e in entries] == [
        ("ward-z", "patient-1", admin.user.id)
    ]
    listed = await client.get("/api/assignments/containers/ward-z/folders", headers=nurse.headers)
    assert (await listed.get_json())["folders"] == ["patient-2"]
    # Unassigning it again: it is gone.
    response = await client.delete(
        f"/api/assignments/{fa.id}", headers=admin.headers, query_string={"type": "folder"}
    )
    assert await error_message(response, 404) == "Assignment not found"


async def test_unassign_type_is_required_and_checked(client: Client, settings: Settings) -> None:
    admin = await make_staff(settings, Role.ADMIN)
    nurse = await make_user(Role.NURSE)
    ca = await assign(nurse, await make_container())
    for query in ({}, {"type": ""}, {"type": "Container"}, {"type": "user"}):
        response = await client.delete(
            f"/api/assignments/{ca.id}", headers=admin.headers, query_string=query
        )
        message = await error_message(response, 400)
        assert "type" in message, (query, message)
    assert await ContainerAssignment.filter(id=ca.id).exists()


async def test_unassign_unknown_ids_404(client: Client, settings: Settings) -> None:
    admin = await make_staff(settings, Role.ADMIN)
    nurse = await make_user(Role.NURSE)
    ward = await make_container()
    folder = await make_folder(ward)
    ca = await assign(nurse, ward, folder)
    fa = await FolderAssignment.get(user=nurse)
    gone_ca, gone_fa = ca.id, fa.id
    await fa.delete()
    await ca.delete()
    for assignment_id, kind in ((gone_ca, "container"), (gone_fa, "folder")):
        response = await client.delete(
            f"/api/assignments/{assignment_id}", headers=admin.headers, query_string={"type": kind}
        )
        assert await error_message(response, 404) == "Assignment not found"
        for bad_id in (2**31, 10**25):
            response = await client.delete(
                f"/api/assignments/{bad_id}", headers=admin.headers, query_string={"type": kind}
            )
            assert await error_message(response, 404) == "Assignment not found"
    await error_message(
        await client.delete("/api/assignments/abc?type=folder", headers=admin.headers), 404
    )
    assert await AuditLog.all().count() == 0
