"""Assignments through the API: caller-scoped listings, assigning, unassigning, and their audit."""

from __future__ import annotations

from typing import Any

from quart.testing import QuartClient as Client

from bff.assignments.models import ContainerAssignment, FolderAssignment
from bff.audit.models import AuditLog
from bff.containers.models import Container
from bff.users.models import Role, User
from config.settings import Settings
from tests.factories import assign, make_container, make_folder, make_staff, make_user


async def _error(response: Any, status: int) -> str:
    assert response.status_code == status, await response.get_data(as_text=True)
    body = await response.get_json()
    assert isinstance(body, dict)
    assert isinstance(body["message"], str) and body["message"]
    return str(body["message"])


async def _audit(operation: str) -> list[AuditLog]:
    return await AuditLog.filter(operation=operation).order_by("id")


async def _folders(container: Container, *names: str) -> None:
    for name in names:
        await make_folder(container, name)


async def _unknown_user_id() -> int:
    gone = await make_user(Role.NURSE)
    await gone.delete()
    return gone.id


# --- listing containers ---------------------------------------------------------------------


async def test_admin_lists_all_containers_in_natural_order(
    client: Client, settings: Settings
) -> None:
    admin = await make_staff(settings, Role.ADMIN)
    for name in ("ward-10", "ward-2", "beta", "ward-1", "alpha-3"):
        await make_container(name)
    response = await client.get("/api/assignments/containers", headers=admin.headers)
    assert response.status_code == 200
    assert await response.get_json() == {
        "containers": ["alpha-3", "beta", "ward-1", "ward-2", "ward-10"],
        "total": 5,
        "page": 1,
        "pageSize": None,
    }


async def test_staff_see_only_assigned_containers(client: Client, settings: Settings) -> None:
    nurse = await make_staff(settings, Role.NURSE)
    other = await make_user(Role.DOCTOR)
    mine_10, mine_2 = await make_container("clinic-10"), await make_container("clinic-2")
    theirs = await make_container("clinic-3")
    await assign(nurse.user, mine_10)
    await assign(nurse.user, mine_2)
    await assign(other, theirs)
    response = await client.get("/api/assignments/containers", headers=nurse.headers)
    body = await response.get_json()
    assert body["containers"] == ["clinic-2", "clinic-10"]
    assert body["total"] == 2

    fresh = await make_staff(settings, Role.ASSISTANT)
    body = await (await client.get("/api/assignments/containers", headers=fresh.headers)).get_json()
    assert body["containers"] == [] and body["total"] == 0


async def test_container_search_is_case_insensitive_substring(
    client: Client, settings: Settings
) -> None:
    admin = await make_staff(settings, Role.ADMIN)
    for name in ("north-ward-1", "south-ward-2", "north-clinic", "ward-12"):
        await make_container(name)
    response = await client.get(
        "/api/assignments/containers", headers=admin.headers, query_string={"q": " WARD "}
    )
    body = await response.get_json()
    assert body["containers"] == ["north-ward-1", "south-ward-2", "ward-12"]
    assert body["total"] == 3
    for literal in ("%", "_", "w%d", "n_rth", "\\"):
        response = await client.get(
            "/api/assignments/containers", headers=admin.headers, query_string={"q": literal}
        )
        assert response.status_code == 200
        assert await response.get_json() == {
            "containers": [],
            "total": 0,
            "page": 1,
            "pageSize": None,
        }, literal


async def test_container_paging(client: Client, settings: Settings) -> None:
    admin = await make_staff(settings, Role.ADMIN)
    for i in range(1, 8):
        await make_container(f"unit-{i}")
    url = "/api/assignments/containers"
    body = await (
        await client.get(url, headers=admin.headers, query_string={"page": 2, "pageSize": 3})
    ).get_json()
    assert body == {
        "containers": ["unit-4", "unit-5", "unit-6"],
        "total": 7,
        "page": 2,
        "pageSize": 3,
    }
    body = await (
        await client.get(url, headers=admin.headers, query_string={"page": 3, "pageSize": 3})
    ).get_json()
    assert body["containers"] == ["unit-7"]
    body = await (
        await client.get(url, headers=admin.headers, query_string={"page": 9, "pageSize": 3})
    ).get_json()
    assert body["containers"] == [] and body["total"] == 7
    body = await (
        await client.get(
            url, headers=admin.headers, query_string={"q": "unit-", "page": 1, "pageSize": 2}
        )
    ).get_json()
    assert body["containers"] == ["unit-1", "unit-2"] and body["total"] == 7


async def test_listing_rejects_bad_query_values(client: Client, settings: Settings) -> None:
    admin = await make_staff(settings, Role.ADMIN)
    container = await make_container()
    for path in (
        "/api/assignments/containers",
        f"/api/assignments/containers/{container.name}/folders",
    ):
        for query in (
            {"page": 0},
            {"page": "abc"},
            {"pageSize": 0},
            {"pageSize": 1001},
            {"pageSize": "x"},
            {"q": "x" * 101},
        ):
            response = await client.get(path, headers=admin.headers, query_string=query)
            await _error(response, 400)


async def test_listing_needs_a_session(client: Client) -> None:
    container = await make_container()
    await _error(await client.get("/api/assignments/containers"), 401)
    await _error(await client.get(f"/api/assignments/containers/{container.name}/folders"), 401)
    await _error(await client.get("/api/assignments/my-assignments"), 401)


# --- listing folders ------------------------------------------------------------------------


async def test_admin_lists_all_folders_in_natural_order(client: Client, settings: Settings) -> None:
    admin = await make_staff(settings, Role.ADMIN)
    ward = await make_container("ward-a")
    await _folders(ward, "patient-10", "patient-2", "patient-1", "Patient-3", "archive")
    other = await make_container("ward-b")
    await _folders(other, "patient-4")
    response = await client.get("/api/assignments/containers/ward-a/folders", headers=admin.headers)
    assert response.status_code == 200
    assert await response.get_json() == {
        "folders": ["archive", "patient-1", "patient-2", "Patient-3", "patient-10"],
        "total": 5,
        "page": 1,
        "pageSize": None,
    }


async def test_staff_see_only_assigned_folders(client: Client, settings: Settings) -> None:
    doctor = await make_staff(settings, Role.DOCTOR)
    ward = await make_container()
    folders = [await make_folder(ward, f"patient-{i}") for i in (1, 2, 10, 11)]
    await assign(doctor.user, ward, folders[3], folders[0], folders[2])
    colleague = await make_user(Role.NURSE)
    await assign(colleague, ward, folders[1])
    response = await client.get(
        f"/api/assignments/containers/{ward.name}/folders", headers=doctor.headers
    )
    body = await response.get_json()
    assert body["folders"] == ["patient-1", "patient-10", "patient-11"]
    assert body["total"] == 3
    response = await client.get(
        f"/api/assignments/containers/{ward.name}/folders",
        headers=doctor.headers,
        query_string={"q": "PATIENT-1", "pageSize": 2, "page": 2},
    )
    body = await response.get_json()
    assert body["folders"] == ["patient-11"] and body["total"] == 3


async def test_staff_get_404_for_unassigned_or_unknown_container(
    client: Client, settings: Settings
) -> None:
    nurse = await make_staff(settings, Role.NURSE)
    hidden = await make_container()
    await make_folder(hidden, "patient-1")
    for name in (hidden.name, "no-such-container"):
        response = await client.get(
            f"/api/assignments/containers/{name}/folders", headers=nurse.headers
        )
        assert await _error(response, 404) == "Container not found"


async def test_staff_with_container_but_no_folders_see_none(
    client: Client, settings: Settings
) -> None:
    nurse = await make_staff(settings, Role.NURSE)
    ward = await make_container()
    await make_folder(ward, "patient-1")
    await assign(nurse.user, ward)
    response = await client.get(
        f"/api/assignments/containers/{ward.name}/folders", headers=nurse.headers
    )
    assert response.status_code == 200
    body = await response.get_json()
    assert body["folders"] == [] and body["total"] == 0


async def test_admin_unknown_container_folders_404(client: Client, settings: Settings) -> None:
    admin = await make_staff(settings, Role.ADMIN)
    response = await client.get("/api/assignments/containers/nope/folders", headers=admin.headers)
    assert await _error(response, 404) == "Container not found"


async def test_folder_search_matches_wildcards_literally(
    client: Client, settings: Settings
) -> None:
    admin = await make_staff(settings, Role.ADMIN)
    ward = await make_container()
    await _folders(ward, "a_b-1", "axb-2", "A.B-3", "ab-4", "case_Mixed")
    url = f"/api/assignments/containers/{ward.name}/folders"

    async def search(q: str) -> list[str]:
        response = await client.get(url, headers=admin.headers, query_string={"q": q})
        assert response.status_code == 200
        body = await response.get_json()
        assert body["total"] == len(body["folders"])
        return list(body["folders"])

    assert await search("_") == ["a_b-1", "case_Mixed"]
    assert await search("a_b") == ["a_b-1"]
    assert await search("%") == []
    assert await search("a%b") == []
    assert await search(".") == ["A.B-3"]
    assert await search("CASE_m") == ["case_Mixed"]
    # Natural order: text prefix (lower-cased, by code point), then the number.
    assert await search("b-") == ["A.B-3", "a_b-1", "ab-4", "axb-2"]
    assert await search("\\") == []
    assert await search("") == ["A.B-3", "a_b-1", "ab-4", "axb-2", "case_Mixed"]


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
    entries = await _audit("container_assign")
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
    assert await _error(response, 409) == "Container 'ward-dup' is already assigned to Nell."
    assert await ContainerAssignment.filter(user_id=nurse.id).count() == 1
    assert await _audit("container_assign") == []


async def test_assign_container_unknown_container_or_user(
    client: Client, settings: Settings
) -> None:
    admin = await make_staff(settings, Role.ADMIN)
    nurse = await make_user(Role.NURSE)
    ward = await make_container()
    response = await client.post(
        f"/api/assignments/containers/missing-ward/users/{nurse.id}", headers=admin.headers
    )
    assert await _error(response, 404) == "Container not found"
    response = await client.post(
        f"/api/assignments/containers/{ward.name}/users/{await _unknown_user_id()}",
        headers=admin.headers,
    )
    assert await _error(response, 404) == "User not found"
    for user_id in (2**31, 10**25):  # beyond the id column: no such user
        response = await client.post(
            f"/api/assignments/containers/{ward.name}/users/{user_id}", headers=admin.headers
        )
        assert await _error(response, 404) == "User not found"
    response = await client.post(
        f"/api/assignments/containers/{ward.name}/users/abc", headers=admin.headers
    )
    await _error(response, 404)
    assert await ContainerAssignment.all().count() == 0
    assert await _audit("container_assign") == []


# --- assigning folders ----------------------------------------------------------------------


async def test_assign_folders(client: Client, settings: Settings) -> None:
    admin = await make_staff(settings, Role.ADMIN)
    doctor = await make_staff(settings, Role.DOCTOR)
    ward = await make_container("ward-f")
    await _folders(ward, "patient-1", "patient-2", "patient-10", "patient-11")
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
    entries = await _audit("folder_assign")
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
    assert len(await _audit("folder_assign")) == 3


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
    message = await _error(response, 409)
    assert message == "Assign container 'ward-g' to Nia before assigning its folders."
    assert await FolderAssignment.all().count() == 0
    assert await _audit("folder_assign") == []


async def test_assign_folders_unknown_folder_writes_nothing(
    client: Client, settings: Settings
) -> None:
    admin = await make_staff(settings, Role.ADMIN)
    nurse = await make_user(Role.NURSE)
    ward = await make_container("ward-h")
    elsewhere = await make_container("ward-i")
    await _folders(ward, "patient-1")
    await _folders(elsewhere, "patient-9")
    await assign(nurse, ward)
    response = await client.post(
        "/api/assignments/containers/ward-h/folders",
        headers=admin.headers,
        json={"userId": nurse.id, "folderNames": ["patient-1", "patient-9", "ghost"]},
    )
    message = await _error(response, 404)
    assert message == "Folders not found in 'ward-h': ghost, patient-9"
    assert await FolderAssignment.all().count() == 0
    assert await _audit("folder_assign") == []


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
    assert await _error(response, 404) == "Container not found"
    response = await client.post(
        f"/api/assignments/containers/{ward.name}/folders",
        headers=admin.headers,
        json={"userId": await _unknown_user_id(), "folderNames": ["patient-1"]},
    )
    assert await _error(response, 404) == "User not found"
    for user_id in (0, -5, 2**31, 10**25):  # outside the id range: a bad request
        response = await client.post(
            f"/api/assignments/containers/{ward.name}/folders",
            headers=admin.headers,
            json={"userId": user_id, "folderNames": ["patient-1"]},
        )
        assert "userId" in await _error(response, 400), user_id


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
        message = await _error(await client.post(url, headers=admin.headers, json=body), 400)
        assert field in message, (body, message)
    h = {**admin.headers, "content-type": "application/json"}
    for raw in ("{oops", "[]", "null"):
        await _error(await client.post(url, headers=h, data=raw), 400)
    assert await FolderAssignment.all().count() == 0


# --- reading assignments --------------------------------------------------------------------


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
        f"/api/assignments/users/{await _unknown_user_id()}", headers=admin.headers
    )
    assert await _error(response, 404) == "User not found"
    response = await client.get(f"/api/assignments/users/{2**31}", headers=admin.headers)
    assert await _error(response, 404) == "User not found"


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


# --- unassigning ----------------------------------------------------------------------------


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

    entries = await _audit("container_unassign")
    assert len(entries) == 1
    assert entries[0].user_id == admin.user.id
    assert entries[0].container_name == "ward-x"
    assert f"user={nurse.user.username}" in entries[0].details
    assert "folders=2" in entries[0].details

    # The nurse has lost access at once.
    response = await client.get("/api/assignments/containers/ward-x/folders", headers=nurse.headers)
    await _error(response, 404)
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
    entries = await _audit("folder_unassign")
    assert [(e.container_name, e.folder_name, e.user_id) for e in entries] == [
        ("ward-z", "patient-1", admin.user.id)
    ]
    listed = await client.get("/api/assignments/containers/ward-z/folders", headers=nurse.headers)
    assert (await listed.get_json())["folders"] == ["patient-2"]
    # Unassigning it again: it is gone.
    response = await client.delete(
        f"/api/assignments/{fa.id}", headers=admin.headers, query_string={"type": "folder"}
    )
    assert await _error(response, 404) == "Assignment not found"


async def test_unassign_type_is_required_and_checked(client: Client, settings: Settings) -> None:
    admin = await make_staff(settings, Role.ADMIN)
    nurse = await make_user(Role.NURSE)
    ca = await assign(nurse, await make_container())
    for query in ({}, {"type": ""}, {"type": "Container"}, {"type": "user"}):
        response = await client.delete(
            f"/api/assignments/{ca.id}", headers=admin.headers, query_string=query
        )
        message = await _error(response, 400)
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
        assert await _error(response, 404) == "Assignment not found"
        for bad_id in (2**31, 10**25):
            response = await client.delete(
                f"/api/assignments/{bad_id}", headers=admin.headers, query_string={"type": kind}
            )
            assert await _error(response, 404) == "Assignment not found"
    await _error(
        await client.delete("/api/assignments/abc?type=folder", headers=admin.headers), 404
    )
    assert await AuditLog.all().count() == 0


# --- permissions ----------------------------------------------------------------------------


async def test_assignment_changes_are_admin_only(client: Client, settings: Settings) -> None:
    target = await make_user(Role.NURSE)
    ward = await make_container()
    folder = await make_folder(ward, "patient-1")
    ca = await assign(target, ward, folder)
    fa = await FolderAssignment.get(user=target)
    for role in (Role.DOCTOR, Role.NURSE, Role.ASSISTANT):
        staff = await make_staff(settings, role)
        await assign(staff.user, ward, folder)  # even with access to the container
        h = staff.headers
        for response in (
            await client.post(
                f"/api/assignments/containers/{ward.name}/users/{staff.user.id}", headers=h
            ),
            await client.post(
                f"/api/assignments/containers/{ward.name}/folders",
                headers=h,
                json={"userId": staff.user.id, "folderNames": ["patient-1"]},
            ),
            await client.get(f"/api/assignments/users/{target.id}", headers=h),
            await client.delete(f"/api/assignments/{ca.id}?type=container", headers=h),
            await client.delete(f"/api/assignments/{fa.id}?type=folder", headers=h),
        ):
            assert await _error(response, 403) == "You don't have permission to do this."
    assert await ContainerAssignment.filter(id=ca.id).exists()
    assert await FolderAssignment.filter(id=fa.id).exists()
    assert await AuditLog.all().count() == 0
    assert await User.filter(id=target.id).exists()
