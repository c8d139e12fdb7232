"""A folder's patient demographics: /api/patients/{container}/{folder}: who reads and who
edits, the scope (unassigned is 404), the rules' 400s, the audit entries, and where the
patient then shows (listings, My Assignments, the emergency view's data)."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

from quart.testing import QuartClient as Client

from bff.containers.models import Folder
from bff.patients import rules
from bff.users.models import Role
from config.settings import Settings
from tests.factories import assign, make_container, make_folder, make_staff
from tests.helpers import audit_entries, error_message

PATIENT = {"name": "José Müller", "dateOfBirth": "1950-03-14", "recordNumber": "MRN-0042"}


def url(container: str, folder: str) -> str:
    return f"/api/patients/{container}/{folder}"


async def _ward(settings: Settings) -> tuple[str, str, dict[Role, dict[str, str]]]:
    """A folder, and the headers of an admin and of a doctor, nurse and assistant assigned it."""
    container = await make_container()
    folder = await make_folder(container, "patient-7")
    headers = {Role.ADMIN: (await make_staff(settings, Role.ADMIN)).headers}
    for role in (Role.DOCTOR, Role.NURSE, Role.ASSISTANT):
        member = await make_staff(settings, role)
        await assign(member.user, container, folder)
        headers[role] = member.headers
    return container.name, folder.name, headers


async def test_permission_matrix(client: Client, settings: Settings) -> None:
    container, folder, headers = await _ward(settings)
    empty = {
        "name": None,
        "dateOfBirth": None,
        "recordNumber": None,
        "changedBy": None,
        "changedAt": None,
    }
    for role in Role:  # everyone on the care team reads, even before anything is known
        response = await client.get(url(container, folder), headers=headers[role])
        assert response.status_code == 200, role
        assert await response.get_json() == empty
    for role, status in [
        (Role.NURSE, 403),
        (Role.ASSISTANT, 403),
        (Role.DOCTOR, 200),
        (Role.ADMIN, 200),
    ]:
        response = await client.put(url(container, folder), headers=headers[role], json=PATIENT)
        assert response.status_code == status, role
    assert (
        await error_message(
            await client.put(url(container, folder), headers=headers[Role.NURSE], json=PATIENT), 403
        )
        == "You don't have permission to do this."
    )
    response = await client.get(url(container, folder), headers=headers[Role.NURSE])
    body = await response.get_json()
    assert {k: body[k] for k in PATIENT} == PATIENT
    # No session: 401, and nothing changed by anyone refused.
    assert (await client.get(url(container, folder))).status_code == 401
    assert (await client.put(url(container, folder), json=PATIENT)).status_code == 401


async def test_other_ward_is_404_and_unknown_is_404(client: Client, settings: Settings) -> None:
    container, folder, _ = await _ward(settings)
    other = await make_container()
    outsider = await make_staff(settings, Role.DOCTOR)  # another ward's doctor
    await assign(outsider.user, other, await make_folder(other, "patient-1"))
    sibling = await make_staff(settings, Role.DOCTOR)  # this ward, another patient
    ward = (await Folder.get(name=folder).prefetch_related("container")).container
    await assign(sibling.user, ward, await make_folder(ward, "patient-9"))
    for caller in (outsider, sibling):
        for method in ("get", "put"):
            call = getattr(client, method)
            kwargs = {"json": PATIENT} if method == "put" else {}
            response = await call(url(container, folder), headers=caller.headers, **kwargs)
            assert await error_message(response, 404) == "Folder not found"
    admin = await make_staff(settings, Role.ADMIN)
    response = await client.get(url(container, "patient-404"), headers=admin.headers)
    assert await error_message(response, 404) == "Folder not found"
    response = await client.put(url("no-such-ward", folder), headers=admin.headers, json=PATIENT)
    assert await error_message(response, 404) == "Container not found"
    assert (await Folder.get(name=folder)).patient_name is None
    denied = await audit_entries("access_denied")
    assert {(e.container_name, e.folder_name) for e in denied} == {(container, folder)}


async def test_edit_is_audited_with_the_fields_not_the_values(
    client: Client, settings: Settings
) -> None:
    container, folder, headers = await _ward(settings)
    response = await client.put(url(container, folder), headers=headers[Role.DOCTOR], json=PATIENT)
    assert await response.get_json() == {"message": "Patient details saved", "patient": PATIENT}
    # The same again changes nothing: no entry, said so.
    again = await client.put(url(container, folder), headers=headers[Role.DOCTOR], json=PATIENT)
    assert (await again.get_json())["message"] == "Patient details unchanged"
    # Blank clears a field; the name is spelt in NFC with spaces collapsed.
    changed = {"name": "  Jose\u0301   Müller ", "dateOfBirth": "", "recordNumber": None}
    response = await client.put(url(container, folder), headers=headers[Role.ADMIN], json=changed)
    assert (await response.get_json())["patient"] == {
        "name": "José Müller",
        "dateOfBirth": None,
        "recordNumber": None,
    }
    entries = await audit_entries("patient_update")
    assert [(e.container_name, e.folder_name, e.role, e.details) for e in entries] == [
        (container, folder, "doctor", "edited: name, date of birth, record number"),
        (container, folder, "admin", "edited: date of birth, record number"),
    ]
    for entry in entries:
        assert "Müller" not in entry.details and "1950" not in entry.details
    await client.get(url(container, folder), headers=headers[Role.ASSISTANT])
    [viewed] = [e for e in await audit_entries("patient_view") if e.role == "assistant"]
    assert (viewed.container_name, viewed.folder_name) == (container, folder)
    row = await Folder.get(name=folder)
    assert row.patient_search == "jose muller\x1f"


async def test_the_patient_says_who_changed_it_last_and_when(
    client: Client, settings: Settings
) -> None:
    """The folder page compares the patient before and after a refetch (a reconnect, whose
    patient:changed was missed) and says who changed them and when: the last change on record,
    this folder's only."""
    container = await make_container()
    folder = await make_folder(container, "patient-7")
    doctor = await make_staff(settings, Role.DOCTOR)
    nurse = await make_staff(settings, Role.NURSE)
    admin = await make_staff(settings, Role.ADMIN)
    for member in (doctor, nurse):
        await assign(member.user, container, folder)
    # The same folder name in another ward, changed last: not this patient's change.
    other_ward = await make_container()
    await make_folder(other_ward, "patient-7")

    async def read() -> dict[str, object]:
        response = await client.get(url(container.name, folder.name), headers=nurse.headers)
        assert response.status_code == 200
        return await response.get_json()  # type: ignore[no-any-return]

    def when(body: dict[str, object]) -> datetime:
        return datetime.fromisoformat(str(body["changedAt"]))

    assert (await read())["changedBy"] is None
    before = datetime.now(UTC)
    await client.put(url(container.name, folder.name), headers=doctor.headers, json=PATIENT)
    after = datetime.now(UTC)
    body = await read()
    assert body["changedBy"] == doctor.user.name
    assert before <= when(body) <= after
    first = when(body)

    corrected = {**PATIENT, "name": "José Müller-Lima"}
    await client.put(url(container.name, folder.name), headers=admin.headers, json=corrected)
    body = await read()
    assert (body["name"], body["changedBy"]) == ("José Müller-Lima", admin.user.name)
    assert when(body) > first
    # Saving the same details again changes nothing, nor who changed them last.
    await client.put(url(container.name, folder.name), headers=doctor.headers, json=corrected)
    elsewhere = {**PATIENT, "recordNumber": "MRN-0043"}
    response = await client.put(
        url(other_ward.name, folder.name), headers=admin.headers, json=elsewhere
    )
    assert response.status_code == 200
    assert await read() == body
    # Each read is audited, the last change's author with it or not.
    views = [e for e in await audit_entries("patient_view") if e.user_id == nurse.user.id]
    assert len(views) == 4


BAD_VALUES: list[tuple[dict[str, str], str]] = [
    ({"name": "Ann\u200bSmith"}, "invisible character (U+200B"),
    ({"name": "Ann\nSmith"}, rules.NAME_RULE),
    ({"name": "x" * 201}, rules.NAME_RULE),
    ({"name": "J\u043ehn Smith"}, "mixes Latin and Cyrillic"),  # a Cyrillic o
    ({"dateOfBirth": "1950-02-30"}, rules.DATE_RULE),
    ({"dateOfBirth": "14/03/1950"}, rules.DATE_RULE),
    ({"dateOfBirth": "1850-01-01"}, rules.EARLY_BIRTH),
    ({"recordNumber": "MRN\x001"}, rules.RECORD_NUMBER_RULE),
    ({"recordNumber": "M" * 65}, rules.RECORD_NUMBER_RULE),
    ({"recordNumber": "MRN\u20131"}, rules.RECORD_NUMBER_RULE),  # an en dash
]


async def test_bad_values_are_400_with_the_reason(client: Client, settings: Settings) -> None:
    container, folder, headers = await _ward(settings)
    for body, message in BAD_VALUES:
        response = await client.put(url(container, folder), headers=headers[Role.DOCTOR], json=body)
        assert message in await error_message(response, 400), body
    assert await audit_entries("patient_update") == []
    assert (await Folder.get(name=folder)).patient_search == ""


async def test_a_date_in_the_future_is_400(client: Client, settings: Settings) -> None:
    container, folder, headers = await _ward(settings)
    tomorrow_everywhere = rules.latest_birth_date() + timedelta(days=1)
    body = {"dateOfBirth": tomorrow_everywhere.isoformat()}
    response = await client.put(url(container, folder), headers=headers[Role.DOCTOR], json=body)
    assert await error_message(response, 400) == rules.FUTURE_BIRTH
    today = datetime.now(UTC).date().isoformat()  # a newborn: today is fine
    response = await client.put(
        url(container, folder), headers=headers[Role.DOCTOR], json={"dateOfBirth": today}
    )
    assert response.status_code == 200
    for bad in ({"name": 5}, {"dateOfBirth": "x" * 41}, [1]):
        response = await client.put(url(container, folder), headers=headers[Role.DOCTOR], json=bad)
        await error_message(response, 400)


def test_the_latest_birth_date_is_the_earliest_zone_s_today() -> None:
    late_evening = datetime(2026, 3, 1, 23, 0, tzinfo=UTC)  # already 2 March at UTC+14
    assert rules.latest_birth_date(late_evening) == date(2026, 3, 2)
    assert rules.latest_birth_date(datetime(2026, 3, 1, 9, 0, tzinfo=UTC)) == date(2026, 3, 1)


async def test_listings_carry_the_patient(client: Client, settings: Settings) -> None:
    container, folder, headers = await _ward(settings)
    container_row = await Folder.get(name=folder).prefetch_related("container")
    await make_folder(container_row.container, "patient-8")  # no patient known
    await client.put(url(container, folder), headers=headers[Role.DOCTOR], json=PATIENT)
    admin_list = await client.get(
        f"/api/assignments/containers/{container}/folders", headers=headers[Role.ADMIN]
    )
    body = await admin_list.get_json()
    assert body["folders"] == ["patient-7", "patient-8"]
    assert body["patients"] == {"patient-7": PATIENT}
    mine = await client.get("/api/assignments/my-assignments/folders", headers=headers[Role.NURSE])
    [stats] = (await mine.get_json())["folders"]
    assert stats["patient"] == PATIENT
