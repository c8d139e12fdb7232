"""A held file (stored while the malware scanner was unavailable, not scanned yet: bff/scan/)
is the admins' only in search too, by its text and by its name."""

from __future__ import annotations

from bff.files.models import StoredFile
from tests.search.conftest import Hospital, names


async def test_a_held_file_is_found_by_admins_only(hospital: Hospital) -> None:
    await hospital.add(hospital.a1, "smith.txt", "Penicillin allergy noted.")
    await hospital.add(hospital.a1, "penicillin-held.txt", "Penicillin allergy, held.")
    await StoredFile.filter(name="penicillin-held.txt").update(scan_state="held")
    admin = await hospital.search(hospital.admin, "penicillin")
    assert sorted(names(admin)) == ["penicillin-held.txt", "smith.txt"]
    for member in (hospital.doctor, hospital.nurse):
        body = await hospital.search(member, "penicillin")
        assert names(body) == ["smith.txt"] and body["total"] == 1
        assert "held" not in str(body)
    await StoredFile.filter(name="penicillin-held.txt").update(scan_state="clean")
    released = await hospital.search(hospital.nurse, "penicillin")
    assert sorted(names(released)) == ["penicillin-held.txt", "smith.txt"]
