"""Folder searches match the patient too: name (any case, with or without accents), record
number, and date of birth typed as ISO or as the web app shows it; scoped as before."""

from __future__ import annotations

from quart.testing import QuartClient as Client

from bff.users.models import Role
from config.settings import Settings
from tests.factories import assign, make_container, make_folder, make_staff

PATIENTS = {
    "patient-1": {"name": "José Müller", "dateOfBirth": "1950-03-14", "recordNumber": "MRN-0042"},
    "patient-2": {"name": "Ann Smith", "dateOfBirth": "1987-11-02", "recordNumber": "A%77_1"},
    "patient-3": {"name": "Mary Mullins", "dateOfBirth": None, "recordNumber": None},
}


async def test_search_by_patient_scoped(client: Client, settings: Settings) -> None:
    ward = await make_container("ward-1")
    other = await make_container("ward-2")
    admin = await make_staff(settings, Role.ADMIN)
    nurse = await make_staff(settings, Role.NURSE)
    folders = {name: await make_folder(ward, name) for name in PATIENTS}
    elsewhere = await make_folder(other, "patient-1")
    # The nurse has patient-1 and patient-3 only; the other ward's José is not hers either.
    await assign(nurse.user, ward, folders["patient-1"], folders["patient-3"])
    for name, patient in PATIENTS.items():
        response = await client.put(f"/api/patients/ward-1/{name}", headers=admin.headers,
                                    json=patient)  # fmt: skip
        assert response.status_code == 200
    # Another José Müller, born the same day (a record number is one folder's only).
    twin = {**PATIENTS["patient-1"], "recordNumber": "MRN-0043"}
    response = await client.put(
        f"/api/patients/ward-2/{elsewhere.name}", headers=admin.headers, json=twin
    )
    assert response.status_code == 200

    async def ward_search(q: str, who: dict[str, str]) -> list[str]:
        response = await client.get(
            "/api/assignments/containers/ward-1/folders", query_string={"q": q}, headers=who
        )
        assert response.status_code == 200
        return list((await response.get_json())["folders"])

    async def my_search(q: str) -> list[tuple[str, str]]:
        response = await client.get(
            "/api/assignments/my-assignments/folders", query_string={"q": q}, headers=nurse.headers
        )
        body = await response.get_json()
        return [(f["containerName"], f["folderName"]) for f in body["folders"]]

    cases = {
        "müller": ["patient-1"],
        "MULLER": ["patient-1"],  # no accent typed, any case
        "mull": ["patient-1", "patient-3"],
        "mrn-0042": ["patient-1"],
        "1950-03-14": ["patient-1"],  # ISO
        "14 Mar 1950": ["patient-1"],  # as the web app shows it
        "14 mar": ["patient-1"],
        "1950-03": ["patient-1"],
        "02 Nov 1987": ["patient-2"],
        "%": ["patient-2"],  # a LIKE wildcard is a character here
        "a%77_": ["patient-2"],
        "patient-2": ["patient-2"],  # the folder's name still
        "nobody": [],
    }
    for q, expected in cases.items():
        assert await ward_search(q, admin.headers) == expected, q
        mine = [f for f in expected if f in ("patient-1", "patient-3")]
        assert await ward_search(q, nurse.headers) == mine, q
        assert await my_search(q) == [("ward-1", f) for f in mine], q
    # The total counts the matches, not the page.
    response = await client.get(
        "/api/assignments/containers/ward-1/folders",
        query_string={"q": "mull", "pageSize": 1},
        headers=admin.headers,
    )
    body = await response.get_json()
    assert (body["folders"], body["total"]) == (["patient-1"], 2)
