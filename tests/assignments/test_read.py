"""Reading assignments: one user's (for admins) and the caller's own."""

from __future__ import annotations

from quart.testing import QuartClient as Client

from bff.assignments.models import FolderAssignment
from bff.users.models import Role
from config.settings import Settings
from tests.factories import (
    assign,
    make_container,
    make_folder,
    make_staff,
    make_user,
    unknown_user_id,
)
from tests.helpers import error_message


async def test_user_assignments(client: Client, settings: Settings) -> None:
    admin = await make_staff(settings, Role.ADMIN)
    nurse = await make_user(Role.NURSE)
    ward_b, ward_a = await make_container("ward-b"), await make_container("ward-a")
    fb = await make_folder(ward_b, "patient-5")
    fa1, fa2 = await make_folder(ward_a, "patient-2"), await make_folder(ward_a, "patient-1")
    ca_b = await assign(nurse, ward_b, fb)
    ca_a = await assign(nurse, ward_a, fa1, fa2)
    fas = {
        (r.folder.container.name, r.folder.name): r.id
        for r in await FolderAssignment.filter(user=nurse).prefetch_related("folder__container")
    }
    response = await client.get(f"/api/assignments/users/{nurse.id}", headers=admin.headers)
    assert response.status_code == 200
    assert await response.get_json() == {
        "containerAssignments": [
            {"id": ca_a.id, "containerName": "ward-a"},
            {"id": ca_b.id, "containerName": "ward-b"},
        ],
        "folderAssignments": [
            {"id": fas[("ward-a", n)], "containerName": "ward-a", "folderName": n}
            for n in ("patient-1", "patient-2")
        ]
        + [
            {
                "id": fas[("ward-b", "patient-5")],
                "containerName": "ward-b",
                "folderName": "patient-5",
            }
        ],
    }


async def test_user_assignments_unknown_user_404(client: Client, settings: Settings) -> None:
    admin = await make_staff(settings, Role.ADMIN)
    response = await client.get(
        f"/api/assignments/users/{await unknown_user_id()}", headers=admin.headers
    )
    assert await error_message(response, 404) == "User not found"
    response = await client.get(f"/api/assignments/users/{2**31}", headers=admin.headers)
    assert await error_message(response, 404) == "User not found"


async def test_my_assignments_shape_and_scope(client: Client, settings: Settings) -> None:
    nurse = await make_staff(settings, Role.NURSE)
    other = await make_user(Role.DOCTOR)
    c10, c2 = await make_container("team-10"), await make_container("team-2")
    f10 = [await make_folder(c10, n) for n in ("patient-10", "patient-9", "patient-1")]
    f2 = await make_folder(c2, "patient-3")
    ca10 = await assign(nurse.user, c10, f10[0], f10[1])
    ca2 = await assign(nurse.user, c2)
    await assign(other, c10, f10[2])
    await assign(other, c2, f2)
    ids = {
        r.folder.name: r.id
        for r in await FolderAssignment.filter(user_id=nurse.user.id).prefetch_related("folder")
    }
    response = await client.get("/api/assignments/my-assignments", headers=nurse.headers)
    assert response.status_code == 200
    assert await response.get_json() == {
        "assignments": [
            {"id": ca2.id, "containerName": "team-2", "folders": []},
            {
                "id": ca10.id,
                "containerName": "team-10",
                "folders": [
                    {"id": ids["patient-9"], "folderName": "patient-9"},
                    {"id": ids["patient-10"], "folderName": "patient-10"},
                ],
            },
        ]
    }


async def test_my_assignments_empty(client: Client, settings: Settings) -> None:
    for role in Role:
        staff = await make_staff(settings, role)
        response = await client.get("/api/assignments/my-assignments", headers=staff.headers)
        assert response.status_code == 200
        assert await response.get_json() == {"assignments": []}
