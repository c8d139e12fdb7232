"""The intake suggestion's query (bff/intake/candidates.py) on real folders, saved as the
patient form saves them: the folders of every container whose record number a document's text
holds, then the suggestion over them."""

from __future__ import annotations

from datetime import date

import pytest
from quart.testing import QuartClient as Client

from bff.containers.models import Folder
from bff.intake.candidates import candidates
from bff.intake.suggest import MAX_KEYS, Candidate, suggest
from bff.users.models import Role
from config.settings import Settings
from tests.factories import make_container, make_folder, make_staff

pytestmark = pytest.mark.database

PATIENTS = {
    ("ward-1", "patient-1"): ("Ann Smith", "1961-03-03", "00123-45"),
    ("ward-1", "patient-2"): ("Ann Smith", "1961-03-03", "B-555"),  # another Ann Smith
    ("ward-2", "patient-1"): ("José Müller", "1950-03-14", "MRN-0042"),
    ("ward-2", "patient-3"): ("Bea Long", None, "12345"),
    ("ward-2", "patient-4"): ("Cy Unnumbered", "1961-03-03", None),
}

REFERRAL = """Department of Cardiology, St Elsewhere Hospital
14/11/2026
Re: patient born 03/03/1961, Hospital number 00123-45, NHS 9123456789
Thank you for seeing this patient with exertional chest pain.
"""


async def saved(client: Client, settings: Settings) -> dict[tuple[str, str], int]:
    """The folders of PATIENTS with their patients saved by an admin; their ids."""
    admin = await make_staff(settings, Role.ADMIN)
    wards = {ward: await make_container(ward) for ward in ("ward-1", "ward-2")}
    ids = {}
    for (ward, folder), (name, born, number) in PATIENTS.items():
        ids[ward, folder] = (await make_folder(wards[ward], folder)).id
        response = await client.put(
            f"/api/patients/{ward}/{folder}",
            headers=admin.headers,
            json={"name": name, "dateOfBirth": born, "recordNumber": number},
        )
        assert response.status_code == 200
    return ids


async def test_a_referral_finds_its_folder_in_any_container(
    client: Client, settings: Settings
) -> None:
    ids = await saved(client, settings)
    found = await candidates(REFERRAL)
    ann = Candidate("ward-1", "patient-1", ids["ward-1", "patient-1"], "Ann Smith",
                    date(1961, 3, 3), "00123-45")  # fmt: skip
    assert found == [ann]  # 12345 is not inside 9123456789
    suggestion = suggest(REFERRAL, found)
    assert suggestion is not None and suggestion.candidate == ann
    assert [(e.kind, e.text, REFERRAL[e.start : e.end]) for e in suggestion.evidence] == [
        ("birth_date", "03/03/1961", "03/03/1961"),
        ("record", "00123-45", "00123-45"),
    ]
    # Another container's folder, its number in another case.
    letter = "JOSE MULLER (mrn-0042) was seen today."
    found = await candidates(letter)
    assert [(c.container, c.folder) for c in found] == [("ward-2", "patient-1")]
    suggestion = suggest(letter, found)
    assert suggestion is not None
    assert [e.kind for e in suggestion.evidence] == ["name", "record"]


async def test_unmatched_letters(client: Client, settings: Settings) -> None:
    await saved(client, settings)
    # The patient named, with a date of birth: no number, no candidate, no suggestion.
    named = "Re: Ann Smith, date of birth 3 March 1961, seen in clinic."
    assert await candidates(named) == []
    assert suggest(named, await candidates(named)) is None
    # 12345 inside a longer number.
    inside = "Bea Long, ref 9123456, and 12345-6"
    assert await candidates(inside) == []
    # Two folders qualify: never one of them.
    both = "Ann Smith, DOB 03/03/1961, seen under 00123-45 and B-555"
    found = await candidates(both)
    assert sorted(c.folder for c in found) == ["patient-1", "patient-2"]
    assert suggest(both, found) is None
    # A number with a date of birth that is another date.
    other_day = "MRN 00123-45, DOB 04/03/1961"
    assert len(await candidates(other_day)) == 1
    assert suggest(other_day, await candidates(other_day)) is None


async def test_many_numbers_are_one_bounded_lookup(client: Client, settings: Settings) -> None:
    await saved(client, settings)
    noise = ", ".join(str(n) for n in range(500_000, 500_000 + 5 * MAX_KEYS))
    # A labelled number is looked up however many numbers come before it.
    text = f"{noise}\nHospital number: 00123-45, DOB 03/03/1961"
    found = await candidates(text)
    assert [c.folder for c in found] == ["patient-1"]
    assert suggest(text, found) is not None
    # An unlabelled one past the first MAX_KEYS is not.
    assert await candidates(f"{noise}, 12345") == []
    assert [c.folder for c in await candidates(f"12345, {noise}")] == ["patient-3"]


async def test_a_number_a_legacy_duplicate_shares_is_no_evidence(
    client: Client, settings: Settings
) -> None:
    ids = await saved(client, settings)
    # As migration 0032 left a duplicate from before it: the number kept, no key.
    ward = await make_container("ward-9")
    legacy = await make_folder(ward, "patient-9")
    await Folder.filter(id=legacy.id).update(
        patient_name="Ann Smith", patient_birth_date=date(1961, 3, 3),
        patient_record_number="00123-45", patient_record_key=None,
    )  # fmt: skip
    found = await candidates(REFERRAL)
    assert [c.folder_id for c in found] == [ids["ward-1", "patient-1"], legacy.id]
    assert suggest(REFERRAL, found) is None
    # Other unkeyed numbers are not candidates.
    await Folder.filter(id=legacy.id).update(patient_record_number="OLD-1")
    assert [c.folder_id for c in await candidates(REFERRAL)] == [ids["ward-1", "patient-1"]]
    # Nor one only unkeyed folders hold (looked for only beside a keyed holder): unmatched.
    assert await candidates("Ann Smith, OLD-1, DOB 03/03/1961") == []
