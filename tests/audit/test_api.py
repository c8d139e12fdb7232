"""The audit log API, GET /api/blobs/audit: filters, newest first, cursor paging, admin only."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from typing import Any

from quart.testing import QuartClient as Client

from bff.audit.chain import verify_chain
from bff.users.models import Role
from config.settings import Settings
from tests.factories import PASSWORD, make_audit_entry, make_staff, make_user
from tests.helpers import error_message

URL = "/api/blobs/audit"
ENTRY_FIELDS = {
    "id",
    "userId",
    "name",
    "role",
    "operation",
    "containerName",
    "folderName",
    "blobName",
    "clientAddress",
    "details",
    "timestamp",
}
BASE = datetime(2024, 3, 10, 12, 0, 0, tzinfo=UTC)


async def _get(client: Client, headers: dict[str, str], **query: Any) -> dict[str, Any]:
    response = await client.get(URL, headers=headers, query_string=query)
    assert response.status_code == 200, await response.get_data(as_text=True)
    body: dict[str, Any] = await response.get_json()
    assert set(body) == {"auditLogs", "nextCursor"}
    return body


async def _ids(client: Client, headers: dict[str, str], **query: Any) -> list[int]:
    return [e["id"] for e in (await _get(client, headers, **query))["auditLogs"]]


async def test_audit_is_admin_only(client: Client, settings: Settings) -> None:
    await make_audit_entry("login")
    for role in (Role.DOCTOR, Role.NURSE, Role.ASSISTANT):
        staff = await make_staff(settings, role)
        response = await client.get(URL, headers=staff.headers)
        assert await error_message(response, 403) == "You don't have permission to do this."
    await error_message(await client.get(URL), 401)


async def test_entry_shape_newest_first(client: Client, settings: Settings) -> None:
    admin = await make_staff(settings, Role.ADMIN)
    nurse = await make_user(Role.NURSE, name="Nora")
    first = await make_audit_entry(
        "folder_assign", user=nurse, container="ward-1", folder="patient-1", details="user=x"
    )
    second = await make_audit_entry("blob_upload", user=nurse, container="ward-1", blob="a.txt")
    body = await _get(client, admin.headers)
    assert body["nextCursor"] is None
    assert [e["id"] for e in body["auditLogs"]] == [second.id, first.id]
    entry = body["auditLogs"][1]
    assert set(entry) == ENTRY_FIELDS
    assert {k: v for k, v in entry.items() if k != "timestamp"} == {
        "id": first.id,
        "userId": nurse.id,
        "name": "Nora",
        "role": "nurse",
        "operation": "folder_assign",
        "containerName": "ward-1",
        "folderName": "patient-1",
        "blobName": "",
        "clientAddress": "127.0.0.1",
        "details": "user=x",
    }
    stamp = datetime.fromisoformat(entry["timestamp"])
    assert stamp.tzinfo is not None
    assert stamp == first.timestamp
    assert body["auditLogs"][0]["blobName"] == "a.txt"


async def test_real_actions_are_listed(client: Client, settings: Settings) -> None:
    admin = await make_staff(settings, Role.ADMIN)
    await make_user(Role.DOCTOR, username="dr-who")
    ok = await client.post("/api/auth/login", json={"username": "dr-who", "password": PASSWORD})
    assert ok.status_code == 200
    bad = await client.post("/api/auth/login", json={"username": "dr-who", "password": "nope!"})
    assert bad.status_code == 401
    created = await client.post(
        "/api/admin/containers", headers=admin.headers, json={"name": "w-1"}
    )
    assert created.status_code == 201
    body = await _get(client, admin.headers)
    assert [e["operation"] for e in body["auditLogs"]] == [
        "container_create",
        "login_failed",
        "login",
    ]
    assert body["auditLogs"][0]["userId"] == admin.user.id
    assert body["auditLogs"][0]["containerName"] == "w-1"
    assert body["auditLogs"][2]["name"] == (await ok.get_json())["user"]["name"]


async def test_filters_combine(client: Client, settings: Settings) -> None:
    admin = await make_staff(settings, Role.ADMIN)
    nurse, doctor = await make_user(Role.NURSE), await make_user(Role.DOCTOR)
    a = await make_audit_entry("folder_assign", user=nurse, container="ward-1", folder="p-1")
    b = await make_audit_entry("folder_assign", user=doctor, container="ward-1", folder="p-2")
    c = await make_audit_entry("folder_assign", user=nurse, container="ward-2", folder="p-1")
    d = await make_audit_entry("login", user=nurse)
    e = await make_audit_entry("container_assign", user=doctor, container="ward-1")
    h = admin.headers
    assert await _ids(client, h) == [e.id, d.id, c.id, b.id, a.id]
    assert await _ids(client, h, operation="folder_assign") == [c.id, b.id, a.id]
    assert await _ids(client, h, userId=nurse.id) == [d.id, c.id, a.id]
    assert await _ids(client, h, containerName="ward-1") == [e.id, b.id, a.id]
    assert await _ids(client, h, folderName="p-1") == [c.id, a.id]
    assert await _ids(client, h, containerName="ward-1", folderName="p-1") == [a.id]
    assert await _ids(client, h, operation="folder_assign", userId=doctor.id) == [b.id]
    # Text filters are case-insensitive substrings (no patterns); the operation is exact.
    assert await _ids(client, h, operation="folder") == []
    assert await _ids(client, h, containerName="ward-%") == []
    assert await _ids(client, h, containerName="WARD-1") == [e.id, b.id, a.id]
    assert await _ids(client, h, containerName="ARD") == [e.id, c.id, b.id, a.id]
    assert await _ids(client, h, folderName="P-") == [c.id, b.id, a.id]
    assert await _ids(client, h, user=nurse.name.upper()[1:]) == [d.id, c.id, a.id]
    assert await _ids(client, h, userId=nurse.id + doctor.id + admin.user.id) == []


async def test_time_range(client: Client, settings: Settings) -> None:
    admin = await make_staff(settings, Role.ADMIN)
    early = await make_audit_entry("login", timestamp=BASE - timedelta(hours=2))
    exact = await make_audit_entry("login", timestamp=BASE)
    late = await make_audit_entry("login", timestamp=BASE + timedelta(hours=2))
    h = admin.headers
    at = BASE.isoformat()
    assert await _ids(client, h, since=at) == [late.id, exact.id]  # since is inclusive
    assert await _ids(client, h, until=at) == [early.id]  # until is exclusive
    assert await _ids(client, h, since=(BASE - timedelta(hours=3)).isoformat(), until=at) == [
        early.id
    ]
    assert await _ids(client, h, since="2024-03-10T12:00:00Z") == [late.id, exact.id]
    assert await _ids(client, h, since="2030-01-01T00:00:00+00:00") == []


async def test_time_range_honours_the_given_time_zone(client: Client, settings: Settings) -> None:
    admin = await make_staff(settings, Role.ADMIN)
    before = await make_audit_entry("login", timestamp=BASE - timedelta(minutes=30))
    after = await make_audit_entry("login", timestamp=BASE + timedelta(minutes=30))
    h = admin.headers
    # 14:00 at UTC+2 and 07:00 at UTC-5 are both 12:00 UTC.
    plus_two = BASE.astimezone(timezone(timedelta(hours=2))).isoformat()
    minus_five = BASE.astimezone(timezone(timedelta(hours=-5))).isoformat()
    assert plus_two == "2024-03-10T14:00:00+02:00"
    for at in (plus_two, minus_five):
        assert await _ids(client, h, since=at) == [after.id], at
        assert await _ids(client, h, until=at) == [before.id], at


async def test_time_range_needs_a_time_zone(client: Client, settings: Settings) -> None:
    admin = await make_staff(settings, Role.ADMIN)
    for query in (
        {"since": "2024-03-10T12:00:00"},
        {"until": "2024-03-10T12:00:00"},
        {"since": "yesterday"},
        {"until": "2024-13-40T00:00:00Z"},
    ):
        response = await client.get(URL, headers=admin.headers, query_string=query)
        message = await error_message(response, 400)
        assert next(iter(query)) in message, (query, message)


async def test_cursor_paging(client: Client, settings: Settings) -> None:
    admin = await make_staff(settings, Role.ADMIN)
    entries = [await make_audit_entry("login", details=str(i)) for i in range(5)]
    expected = [e.id for e in reversed(entries)]
    h = admin.headers
    seen: list[int] = []
    pages = 0
    cursor = None
    while True:
        query: dict[str, Any] = {"limit": 2}
        if cursor is not None:
            query["cursor"] = cursor
        body = await _get(client, h, **query)
        pages += 1
        ids = [e["id"] for e in body["auditLogs"]]
        assert len(ids) <= 2
        seen += ids
        cursor = body["nextCursor"]
        if cursor is None:
            break
        assert cursor == ids[-1]
    assert seen == expected
    assert pages == 3
    # An exact fit ends with no further cursor.
    body = await _get(client, h, limit=5)
    assert len(body["auditLogs"]) == 5 and body["nextCursor"] is None


async def test_cursor_paging_with_a_filter(client: Client, settings: Settings) -> None:
    admin = await make_staff(settings, Role.ADMIN)
    wanted = []
    for i in range(6):
        entry = await make_audit_entry("login" if i % 2 else "logout", details=str(i))
        if i % 2:
            wanted.append(entry.id)
    h = admin.headers
    first = await _get(client, h, operation="login", limit=2)
    assert [e["id"] for e in first["auditLogs"]] == wanted[::-1][:2]
    second = await _get(client, h, operation="login", limit=2, cursor=first["nextCursor"])
    assert [e["id"] for e in second["auditLogs"]] == wanted[::-1][2:]
    assert second["nextCursor"] is None


async def test_default_limit_is_50(client: Client, settings: Settings) -> None:
    admin = await make_staff(settings, Role.ADMIN)
    for i in range(51):
        await make_audit_entry("login", details=str(i))
    body = await _get(client, admin.headers)
    assert len(body["auditLogs"]) == 50
    assert body["nextCursor"] is not None
    rest = await _get(client, admin.headers, cursor=body["nextCursor"])
    assert len(rest["auditLogs"]) == 1 and rest["nextCursor"] is None
    body = await _get(client, admin.headers, limit=200)
    assert len(body["auditLogs"]) == 51


async def test_bad_paging_and_filter_values_are_400(client: Client, settings: Settings) -> None:
    admin = await make_staff(settings, Role.ADMIN)
    await make_audit_entry("login")
    for query in (
        {"limit": 0},
        {"limit": 201},
        {"limit": -1},
        {"limit": "ten"},
        {"cursor": 0},
        {"cursor": -3},
        {"cursor": "abc"},
        {"userId": "me"},
        {"operation": "x" * 41},
        {"containerName": "c" * 64},
        {"folderName": "f" * 101},
    ):
        response = await client.get(URL, headers=admin.headers, query_string=query)
        message = await error_message(response, 400)
        assert next(iter(query)) in message, (query, message)


async def test_out_of_range_numbers_are_not_server_errors(
    client: Client, settings: Settings
) -> None:
    admin = await make_staff(settings, Role.ADMIN)
    entry = await make_audit_entry("login")
    for query in ({"userId": 2**31}, {"userId": 10**30}, {"cursor": 2**63}, {"cursor": 10**30}):
        response = await client.get(URL, headers=admin.headers, query_string=query)
        assert response.status_code in (200, 400), (query, await response.get_data(as_text=True))
        if response.status_code == 400:
            assert (await response.get_json())["message"]
    body = await _get(client, admin.headers, cursor=2**62)
    assert [e["id"] for e in body["auditLogs"]] == [entry.id]


async def test_listing_does_not_touch_the_chain(client: Client, settings: Settings) -> None:
    admin = await make_staff(settings, Role.ADMIN)
    for _ in range(3):
        await make_audit_entry("login")
    await _get(client, admin.headers)
    checked, broken = await verify_chain()
    assert checked == 3 and broken is None
