"""GET /api/search names each hit's patient (issue 50): the folder's name, date of birth and
record number as set through the API, null when nothing is known; the order and the scope as
before (a hit's patient is one the caller may already read)."""

from __future__ import annotations

import pytest

from tests.search.conftest import Hospital, names

pytestmark = pytest.mark.database

SMITH = {"name": "John Smith", "dateOfBirth": "1955-01-30", "recordNumber": "MRN-0001"}
MUELLER = {"name": "Anna Müller", "dateOfBirth": None, "recordNumber": "MRN-0003"}


async def test_each_hit_names_its_patient(hospital: Hospital) -> None:
    for folder, patient in (("ward-a/Smith_John", SMITH), ("ward-b/Müller_Anna", MUELLER)):
        response = await hospital.client.put(
            f"/api/patients/{folder}", json=patient, headers=hospital.admin.headers
        )
        assert response.status_code == 200, await response.get_data(as_text=True)
    await hospital.add(hospital.a1, "smith.txt", "Penicillin allergy.")
    await hospital.add(hospital.a1, "smith-2.txt", "Penicillin allergy, penicillin again.")
    await hospital.add(hospital.a2, "jones.txt", "Penicillin allergy, rash.")
    await hospital.add(hospital.b1, "mueller.txt", "Penicillin allergy: anaphylaxis.")

    admin = await hospital.search(hospital.admin, "penicillin")
    by_file = {r["blobName"]: r["patient"] for r in admin["results"]}
    assert by_file == {
        "smith.txt": SMITH,
        "smith-2.txt": SMITH,
        "jones.txt": None,  # nothing known of this folder's patient
        "mueller.txt": MUELLER,
    }
    # The nurse of ward A reads Smith_John only: her hits name that patient, and no other.
    nurse = await hospital.search(hospital.nurse, "penicillin")
    assert sorted(names(nurse)) == ["smith-2.txt", "smith.txt"]
    assert [r["patient"] for r in nurse["results"]] == [SMITH, SMITH]
    assert "Müller" not in str(nurse) and "MRN-0003" not in str(nurse)
    # Ward B's nurse: her one patient.
    other = await hospital.search(hospital.nurse_b, "penicillin")
    assert [(r["blobName"], r["patient"]) for r in other["results"]] == [("mueller.txt", MUELLER)]
    # Page by page, the same patients in the same order.
    first = await hospital.search(hospital.admin, "penicillin", limit=1)
    rest = await hospital.search(hospital.admin, "penicillin", cursor=first["nextCursor"])
    assert [r["patient"] for r in first["results"] + rest["results"]] == [
        r["patient"] for r in admin["results"]
    ]
