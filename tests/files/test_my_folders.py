"""GET /api/assignments/my-assignments/folders: the caller's folders across containers, searched
and paged with their file counts (My Assignments' list and the staff dashboard's search)."""

from __future__ import annotations

from typing import Any

from bff.users.models import Role
from tests.factories import assign, make_container, make_file, make_folder, make_staff
from tests.files.conftest import Ward
from tests.helpers import BAD_PAGING, audit_entries, error_message

URL = "/api/assignments/my-assignments/folders"


async def _get(ward: Ward, headers: dict[str, str], **query: Any) -> dict[str, Any]:
    response = await ward.client.get(URL, headers=headers, query_string=query)
    assert response.status_code == 200, await response.get_data(as_text=True)
    body: dict[str, Any] = await response.get_json()
    return body


def _names(body: dict[str, Any]) -> list[tuple[str, str]]:
    return [(f["containerName"], f["folderName"]) for f in body["folders"]]


async def test_a_page_of_my_folders_across_containers_with_file_counts(ward: Ward) -> None:
    second = await make_container("a-ward-2")
    mine = [await make_folder(second, f"Patient-{i}") for i in (10, 2, 33)]
    await assign(ward.nurse.user, second, *mine)
    await make_folder(second, "patient-4")  # in an assigned container, not assigned: hidden
    for name in ("a.pdf", "b.PDF", "notes"):
        await make_file(ward.storage, mine[1], name)
    await make_file(ward.storage, ward.other, "secret.pdf")  # not assigned: never counted

    body = await _get(ward, ward.nurse.headers)
    assert _names(body) == [
        ("a-ward-2", "Patient-2"),
        ("a-ward-2", "Patient-10"),
        ("a-ward-2", "Patient-33"),
        (ward.container.name, "patient-1"),
    ]
    assert (body["total"], body["page"], body["pageSize"]) == (4, 1, None)
    assert body["folders"][0] == {
        "containerName": "a-ward-2",
        "folderName": "Patient-2",
        "totalFiles": 3,
        "fileTypes": {"pdf": 2, "none": 1},
        "patient": None,
    }
    assert body["folders"][1]["totalFiles"] == 0 and body["folders"][1]["fileTypes"] == {}

    # Case-insensitive substring of the folder's name, paged: 20 a page in the web app.
    body = await _get(ward, ward.nurse.headers, q=" PATIENT-", page=2, pageSize=3)
    assert _names(body) == [(ward.container.name, "patient-1")]
    assert (body["total"], body["page"], body["pageSize"]) == (4, 2, 3)
    body = await _get(ward, ward.nurse.headers, q="t-3")
    assert _names(body) == [("a-ward-2", "Patient-33")]
    assert (await _get(ward, ward.nurse.headers, q="%"))["folders"] == []
    assert (await _get(ward, ward.nurse.headers, page=9, pageSize=20))["folders"] == []


async def test_search_never_shows_anothers_folders(ward: Ward) -> None:
    """A nurse searching for a colleague's patient finds nothing: not the folder of another
    container, not the unassigned folder of her own container."""
    colleague = await make_staff(ward.settings, Role.NURSE)
    theirs = await make_container("ward-theirs")
    secret = await make_folder(theirs, "patient-77")
    await assign(colleague.user, theirs, secret)
    assert (await _get(ward, ward.nurse.headers, q="77"))["total"] == 0
    assert (await _get(ward, ward.nurse.headers, q=ward.other.name))["total"] == 0
    assert _names(await _get(ward, colleague.headers, q="patient")) == [
        ("ward-theirs", "patient-77")
    ]
    # "My" folders: an admin sees their own assignments here too (none), not every folder.
    assert (await _get(ward, ward.admin.headers, q="patient"))["total"] == 0


async def test_the_listing_is_audited(ward: Ward) -> None:
    await _get(ward, ward.nurse.headers, q="pat", page=1, pageSize=20)
    [entry] = await audit_entries("folder_list")
    assert (entry.user_id, entry.role, entry.container_name) == (ward.nurse.user.id, "nurse", "")
    assert entry.details == "my folders, search 'pat', page 1"


async def test_bad_paging_is_400_with_a_message(ward: Ward) -> None:
    for query in BAD_PAGING:
        response = await ward.client.get(URL, headers=ward.nurse.headers, query_string=query)
        message = await error_message(response, 400)
        assert "<" not in message, message
    assert await audit_entries("folder_list") == []


async def test_signed_out_is_401(ward: Ward) -> None:
    response = await ward.client.get(URL)
    assert response.status_code == 401
