"""Caller-scoped listings of containers and folders: order, search, paging, scope."""

from __future__ import annotations

from quart.testing import QuartClient as Client

from bff.users.models import Role
from config.settings import Settings
from tests.factories import assign, make_container, make_folder, make_folders, make_staff, make_user
from tests.helpers import BAD_PAGING, error_message

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
        for query in BAD_PAGING:
            response = await client.get(path, headers=admin.headers, query_string=query)
            await error_message(response, 400)


# --- listing folders ------------------------------------------------------------------------


async def test_admin_lists_all_folders_in_natural_order(client: Client, settings: Settings) -> None:
    admin = await make_staff(settings, Role.ADMIN)
    ward = await make_container("ward-a")
    await make_folders(ward, "patient-10", "patient-2", "patient-1", "Patient-3", "archive")
    other = await make_container("ward-b")
    await make_folders(other, "patient-4")
    response = await client.get("/api/assignments/containers/ward-a/folders", headers=admin.headers)
    assert response.status_code == 200
    assert await response.get_json() == {
        "folders": ["archive", "patient-1", "patient-2", "Patient-3", "patient-10"],
        "patients": {},
        "total": 5,
        "page": 1,
        "pageSize": None,
        "approximate": False,
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
        assert await error_message(response, 404) == "Container not found"


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
    assert await error_message(response, 404) == "Container not found"


async def test_folder_search_matches_wildcards_literally(
    client: Client, settings: Settings
) -> None:
    admin = await make_staff(settings, Role.ADMIN)
    ward = await make_container()
    await make_folders(ward, "a_b-1", "axb-2", "A.B-3", "ab-4", "case_Mixed")
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
