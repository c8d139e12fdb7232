"""The patient finder (issue 50): folder searches "by folder name or patient" also find a date
of birth as people type it (in BFF_DATE_ORDER), a name without its accents, and a name with
one typo when nothing matches exactly (bounded: bff/patients/finder.py); scoped as before.
The pure rules first, then through the real app on the run's database."""

from __future__ import annotations

from pathlib import Path

import pytest
from quart.testing import QuartClient as Client

from bff.patients.finder import Finder, matches, one_typo, pieces
from bff.patients.rules import Demographics, search_text
from bff.users.models import Role
from config.settings import Settings
from tests.conftest import make_settings, started_app
from tests.factories import StaffMember, assign, make_container, make_folder, make_staff

# --- The rules ----------------------------------------------------------------------------


def test_one_typo() -> None:
    for typed in ("smith", "smoth", "smth", "smiith", "smtih", "msith", "smiht"):
        assert one_typo(typed, "smith"), typed
    for typed in ("smoht", "smithson", "sm", "jones", "mtish"):
        assert not one_typo(typed, "smith"), typed


def test_a_word_one_typo_away_holds_a_piece_of_it_whole() -> None:
    """What the database's candidate filter relies on: every name word within one typo of the
    typed word contains one of the typed word's pieces."""
    typed = "mueller"
    alphabet = "abelmruz"
    near = {typed[:i] + typed[i + 1 :] for i in range(len(typed))}
    near |= {typed[:i] + c + typed[i:] for i in range(len(typed) + 1) for c in alphabet}
    near |= {typed[:i] + c + typed[i + 1 :] for i in range(len(typed)) for c in alphabet}
    near |= {typed[:i] + typed[i + 1] + typed[i] + typed[i + 2 :] for i in range(len(typed) - 1)}
    for word in near:
        assert one_typo(typed, word), word
        assert any(piece in word for piece in pieces(typed)), word


def test_matches_words_in_any_order_one_with_a_typo() -> None:
    text = search_text(Demographics("José Müller", None, "MRN-0042"))
    assert matches(Finder.of("Jose Mulller"), text)
    assert matches(Finder.of("muller jose"), text)  # any order
    assert matches(Finder.of("Mueller"), text)  # a letter added to "muller"
    assert not matches(Finder.of("Moeler"), text)  # two letters changed
    assert matches(Finder.of("Jose Mulller mrn-0042"), text)
    assert not matches(Finder.of("Jise Mulller"), text)  # two typos
    assert not matches(Finder.of("Joe"), text)  # too short for a typo
    assert Finder.of("30/01/1955").may_have_typo() is False  # a date
    assert Finder.of("a b c d e").may_have_typo() is False


# --- Through the app ----------------------------------------------------------------------

PATIENTS = {
    "patient-1": {"name": "José Müller", "dateOfBirth": "1955-01-30", "recordNumber": "MRN-1"},
    "patient-2": {"name": "Ann Smith", "dateOfBirth": "1987-11-02", "recordNumber": "MRN-2"},
    "patient-3": {"name": "Mary Mullins", "dateOfBirth": "1987-02-11", "recordNumber": None},
}
CASES = {
    # Dates of birth as people type them (day-month, the default).
    "30/01/1955": ["patient-1"],
    "30.01.1955": ["patient-1"],
    "30-1-1955": ["patient-1"],
    "1955-01-30": ["patient-1"],
    "30 Jan 1955": ["patient-1"],
    "30 January 1955": ["patient-1"],
    "January 30, 1955": ["patient-1"],
    "02/11/1987": ["patient-2"],
    "11/02/1987": ["patient-3"],
    "31/02/1955": [],
    # Without accents, any case.
    "jose muller": ["patient-1"],
    "JOSE": ["patient-1"],
    # One typo, only when nothing matches exactly.
    "Smoth": ["patient-2"],
    "Smtih": ["patient-2"],
    "ann smoth": ["patient-2"],
    "Mulller": ["patient-1"],
    "Mullen": ["patient-1"],
    "mary mulins": ["patient-3"],
    "muller jose": ["patient-1"],
    "mull": ["patient-1", "patient-3"],  # exact: no typo tried
    "Smoht": [],  # two typos
    "Amn": [],  # too short for a typo
    "patient-2": ["patient-2"],
}


async def _ward(client: Client, settings: Settings) -> tuple[StaffMember, StaffMember]:
    """ward-1's three patients; an admin, and a nurse assigned patient-1 and patient-3."""
    ward = await make_container("ward-1")
    folders = {name: await make_folder(ward, name) for name in PATIENTS}
    admin = await make_staff(settings, Role.ADMIN)
    nurse = await make_staff(settings, Role.NURSE)
    await assign(nurse.user, ward, folders["patient-1"], folders["patient-3"])
    for name, patient in PATIENTS.items():
        response = await client.put(
            f"/api/patients/ward-1/{name}", headers=admin.headers, json=patient
        )
        assert response.status_code == 200
    return admin, nurse


async def _found(client: Client, q: str, who: StaffMember) -> list[str]:
    response = await client.get(
        "/api/assignments/containers/ward-1/folders", query_string={"q": q}, headers=who.headers
    )
    assert response.status_code == 200
    return list((await response.get_json())["folders"])


async def _mine(client: Client, q: str, who: StaffMember) -> list[str]:
    response = await client.get(
        "/api/assignments/my-assignments/folders", query_string={"q": q}, headers=who.headers
    )
    assert response.status_code == 200
    return [f["folderName"] for f in (await response.get_json())["folders"]]


@pytest.mark.database
async def test_the_finder_through_the_app(client: Client, settings: Settings) -> None:
    admin, nurse = await _ward(client, settings)
    for q, expected in CASES.items():
        assert await _found(client, q, admin) == expected, q
        theirs = [f for f in expected if f in ("patient-1", "patient-3")]
        assert await _found(client, q, nurse) == theirs, q
        assert await _mine(client, q, nurse) == theirs, q
    # The total counts a typo's matches too.
    response = await client.get(
        "/api/assignments/containers/ward-1/folders",
        query_string={"q": "Smoth", "pageSize": 1},
        headers=admin.headers,
    )
    body = await response.get_json()
    assert (body["folders"], body["total"]) == (["patient-2"], 1)


async def _approximate(
    client: Client, url: str, q: str, who: StaffMember
) -> tuple[list[str], bool]:
    response = await client.get(url, query_string={"q": q}, headers=who.headers)
    assert response.status_code == 200
    body = await response.get_json()
    names = [f if isinstance(f, str) else f["folderName"] for f in body["folders"]]
    return names, body["approximate"]


@pytest.mark.database
async def test_an_answer_found_only_by_the_typo_says_it_is_approximate(
    client: Client, settings: Settings
) -> None:
    """A single match by one typo ("Jose Mulller") is not the patient asked for (Enter must not
    open it: a wrong-patient risk); an exact one ("jose muller", a date, the folder's code) is.
    Both folder searches that use the finder say which, for every caller's scope."""
    admin, nurse = await _ward(client, settings)
    ward = "/api/assignments/containers/ward-1/folders"
    mine = "/api/assignments/my-assignments/folders"
    for url, who in ((ward, admin), (ward, nurse), (mine, nurse)):
        assert await _approximate(client, url, "Jose Mulller", who) == (["patient-1"], True)
        assert await _approximate(client, url, "mary mulins", who) == (["patient-3"], True)
        for exact in ("jose muller", "JOSE", "30/01/1955", "patient-1"):
            assert await _approximate(client, url, exact, who) == (["patient-1"], False), exact
        assert await _approximate(client, url, "Smoht", who) == ([], False)  # nothing close
        assert (await _approximate(client, url, "", who))[1] is False  # no search
    # The nurse is not told of a typo match outside her scope: Ann Smith is not hers.
    assert await _approximate(client, ward, "ann smoth", admin) == (["patient-2"], True)
    assert await _approximate(client, ward, "ann smoth", nurse) == ([], False)
    assert await _approximate(client, mine, "ann smoth", nurse) == ([], False)


@pytest.mark.database
async def test_month_day_order(database_url: str, run_dir: Path) -> None:
    settings = make_settings(database_url, run_dir, date_order="month-day")
    async with started_app(settings) as app:
        client = app.test_client()
        admin, _ = await _ward(client, settings)
        assert await _found(client, "02/11/1987", admin) == ["patient-3"]
        assert await _found(client, "11/02/1987", admin) == ["patient-2"]
        assert await _found(client, "01/30/1955", admin) == ["patient-1"]
        assert await _found(client, "30 Jan 1955", admin) == ["patient-1"]
