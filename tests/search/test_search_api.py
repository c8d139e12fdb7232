"""GET /api/search on either database: the scope (a permission matrix), the query syntax,
paging, filters, the audit entry and readable refusals. Files get their text as in use: uploaded
through the API and read by the text job (tests/search/conftest.py `Hospital`)."""

from __future__ import annotations

import logging
from datetime import UTC, datetime

import pytest

from bff.files.models import StoredFile
from bff.search import repository
from bff.search.models import SearchText
from bff.search.repository import TIER, Position
from tests.helpers import audit_entries
from tests.search.conftest import Hospital, names

pytestmark = pytest.mark.database

LETTER = "Discharge letter. Known penicillin allergy; amoxicillin avoided. Seen at the café."


async def test_each_role_finds_exactly_the_files_it_may_read(hospital: Hospital) -> None:
    await hospital.add(hospital.a1, "smith.txt", LETTER)
    await hospital.add(hospital.a2, "jones.txt", "Penicillin allergy, rash in 2019.")
    await hospital.add(hospital.b1, "mueller.txt", "Penicillin allergy: anaphylaxis.")
    admin = await hospital.search(hospital.admin, "penicillin allergy")
    assert sorted(names(admin)) == ["jones.txt", "mueller.txt", "smith.txt"]
    assert admin["total"] == 3
    for member in (hospital.doctor, hospital.nurse, hospital.assistant):
        body = await hospital.search(member, "penicillin allergy")
        assert names(body) == ["smith.txt"] and body["total"] == 1
        assert "rash" not in str(body) and "anaphylaxis" not in str(body)
    other_ward = await hospital.search(hospital.nurse_b, "penicillin")
    assert names(other_ward) == ["mueller.txt"] and other_ward["total"] == 1
    # A word only another ward's file holds: nothing, not even a count.
    nothing = await hospital.search(hospital.nurse_b, "amoxicillin")
    assert nothing == {"results": [], "nextCursor": None, "total": 0, "totalCapped": False}
    # Narrowing to what is not assigned answers like what does not exist.
    unknown = await hospital.search(hospital.nurse_b, "x", 400, container="ward-a")
    missing = await hospital.search(hospital.nurse_b, "x", 400, container="no-such-ward")
    assert unknown == missing == {"message": "Container not found"}
    folder = await hospital.search(
        hospital.nurse, "x", 400, container="ward-a", folder="Jones_Mary"
    )
    assert folder == {"message": "Folder not found"}


async def test_an_emergency_grant_cannot_search(hospital: Hospital) -> None:
    from bff.tokens.models import SmartToken, TokenStatus
    from bff.tokens.signing import new_token_id, sign

    await hospital.add(hospital.a1, "smith.txt", LETTER)
    token = await SmartToken.create(
        token_id=new_token_id(),
        secure_chip_id="chip-search",
        status=TokenStatus.ASSIGNED,
        folder=hospital.a1,
        patient_name="John Smith",
        patient_date_of_birth=datetime(1950, 1, 2).date(),
        assigned_at=datetime.now(UTC),
    )
    browser = hospital.app.test_client()
    scanned = await browser.get(
        f"/patients/verify/{token.token_id}?s={sign(hospital.settings, token.token_id)}"
    )
    assert scanned.status_code == 303
    assert (await browser.get("/api/emergency/session")).status_code == 200
    response = await browser.get("/api/search", query_string={"q": "penicillin"})
    assert response.status_code == 401
    assert await audit_entries("search") == []


async def test_a_snippet_marks_the_matches_in_plain_text(hospital: Hospital) -> None:
    await hospital.add(
        hospital.a1,
        "smith.pdf",
        "Intro.\n\n" + LETTER,
        "Second page: <b>penicillin</b>",
        content_type="application/pdf",
    )
    body = await hospital.search(hospital.nurse, "penicillin")
    [result] = body["results"]
    assert result["page"] in (1, 2)
    text = result["snippet"]["text"]
    assert [text[a:b].lower() for a, b in result["snippet"]["highlights"]] == ["penicillin"]
    assert result["folderName"] == "Smith_John" and result["containerName"] == "ward-a"
    assert result["contentType"] == "application/pdf"


async def test_syntax_phrase_exclusion_prefix_diacritics_stemming(hospital: Hospital) -> None:
    await hospital.add(hospital.a1, "letter.txt", LETTER)
    await hospital.add(hospital.a1, "note.txt", "Allergy to penicillin suspected; cafe visit.")
    await hospital.add(hospital.a1, "labs.txt", "Blood count normal. Cardiology referral.")
    assert set(names(await hospital.search(hospital.nurse, "penicillin allergy"))) == {
        "letter.txt",
        "note.txt",
    }
    assert names(await hospital.search(hospital.nurse, '"penicillin allergy"')) == ["letter.txt"]
    assert names(await hospital.search(hospital.nurse, "penicillin -amoxicillin")) == ["note.txt"]
    assert names(await hospital.search(hospital.nurse, "cardio*")) == ["labs.txt"]
    assert names(await hospital.search(hospital.nurse, "cardiol*  -blood")) == []
    # Diacritics: café finds cafe and cafe finds café.
    assert set(names(await hospital.search(hospital.nurse, "café"))) == {"letter.txt", "note.txt"}
    assert set(names(await hospital.search(hospital.nurse, "cafe"))) == {"letter.txt", "note.txt"}
    # English stems: allergies finds allergy; suspect finds suspected.
    assert set(names(await hospital.search(hospital.nurse, "allergies"))) == {
        "letter.txt",
        "note.txt",
    }
    assert names(await hospital.search(hospital.nurse, "suspect")) == ["note.txt"]
    # All words must match.
    assert names(await hospital.search(hospital.nurse, "penicillin cardiology")) == []


GARBAGE = [
    '"',
    '"penicillin',
    "penicillin AND",
    "NEAR(penicillin allergy)",
    "text:penicillin",
    "{text}: penicillin",
    "penicillin OR",
    "(penicillin",
    "^penicillin",
    "penicillin -",
    "pen'cillin",
    "p*",
    "penicillin\\",
    "'; DROP TABLE files; --",
    "penicillin:* & !x",
    "😀 penicillin",
    "e.coli/penicillin",
    "penicillin*-",
]


async def test_garbage_is_taken_as_words_never_a_failure(hospital: Hospital) -> None:
    await hospital.add(hospital.a1, "letter.txt", LETTER)
    for q in GARBAGE:
        response = await hospital.client.get(
            "/api/search", query_string={"q": q}, headers=hospital.admin.headers
        )
        assert response.status_code in (200, 400), (q, await response.get_data(as_text=True))
        if "penicillin" in q and response.status_code == 200:
            body = await response.get_json()
            assert body["total"] in (0, 1), q


async def test_file_and_folder_names_are_searched(hospital: Hospital) -> None:
    pdf = "application/pdf"
    await hospital.add(hospital.a1, "penicillin_letter.pdf", "Referral", content_type=pdf)
    await hospital.add(hospital.a2, "scan.pdf", "Blood count", content_type=pdf)
    body = await hospital.search(hospital.nurse, "penicillin")
    [result] = body["results"]
    assert result["blobName"] == "penicillin_letter.pdf" and result["page"] is None
    assert result["snippet"] == {"text": "penicillin_letter.pdf", "highlights": [[0, 10]]}
    # A folder's name (the patient's) finds its files, only in scope.
    assert names(await hospital.search(hospital.nurse, "smith")) == ["penicillin_letter.pdf"]
    assert names(await hospital.search(hospital.nurse, "jones")) == []
    assert names(await hospital.search(hospital.admin, "jones")) == ["scan.pdf"]
    assert names(await hospital.search(hospital.admin, "mull*")) == []  # no files there


async def test_a_profile_image_is_never_a_result(hospital: Hospital) -> None:
    stored = await hospital.add(hospital.a1, "letter.txt", "penicillin")
    await StoredFile.filter(id=stored.id).update(is_profile_image=True)
    assert (await hospital.search(hospital.admin, "penicillin"))["total"] == 0


async def test_a_name_matches_only_in_the_callers_folders(hospital: Hospital) -> None:
    """The file-name part of a search is scoped like its text: a file whose name holds the
    word, in a folder the caller is not assigned, is neither a result nor counted."""
    pdf = "application/pdf"
    await hospital.add(hospital.a1, "penicillin_letter.pdf", "Referral", content_type=pdf)
    await hospital.add(hospital.a2, "penicillin_history.txt", "Rash in 2019.")
    await hospital.add(hospital.b1, "penicillin_mueller.txt", "Anaphylaxis.")
    for q in ("penicillin", "penic*"):
        for member in (hospital.doctor, hospital.nurse, hospital.assistant):
            body = await hospital.search(member, q)
            assert (names(body), body["total"]) == (["penicillin_letter.pdf"], 1), q
        other = await hospital.search(hospital.nurse_b, q)
        assert (names(other), other["total"]) == (["penicillin_mueller.txt"], 1), q
        admin = await hospital.search(hospital.admin, q)
        assert admin["total"] == 3 and sorted(names(admin)) == [
            "penicillin_history.txt",
            "penicillin_letter.pdf",
            "penicillin_mueller.txt",
        ]
    # Narrowed to the caller's one container, the other folder's file is still left out.
    narrowed = await hospital.search(hospital.nurse, "penicillin", container="ward-a")
    assert (names(narrowed), narrowed["total"]) == (["penicillin_letter.pdf"], 1)


async def test_a_file_matching_by_name_and_on_two_pages_counts_once(hospital: Hospital) -> None:
    pages = ("Asthma since childhood.", "Asthma inhaler twice a day.")
    await hospital.add(hospital.a1, "asthma_plan.pdf", *pages, content_type="application/pdf")
    await hospital.add(hospital.a1, "review.txt", "Asthma under control.")
    body = await hospital.search(hospital.nurse, "asthma")
    assert names(body) == ["asthma_plan.pdf", "review.txt"]  # a name match ranks first
    assert (body["total"], body["totalCapped"], body["nextCursor"]) == (2, False, None)
    first = await hospital.search(hospital.nurse, "asthma", limit="1")
    assert (names(first), first["total"]) == (["asthma_plan.pdf"], 2)
    # A page past the last result counts the same way.
    past = Position(3 * TIER, datetime.now(UTC), 2**31 - 1).encode()
    after = await hospital.search(hospital.nurse, "asthma", cursor=past)
    assert (after["results"], after["total"], after["totalCapped"]) == ([], 2, False)


async def test_an_overwritten_file_is_found_by_its_new_text_only(hospital: Hospital) -> None:
    """Overwritten through the upload API: until the new content's text is read, its earlier
    content's text (still in the index: the job replaces it) is not found; then only the new
    one is. Deleted: neither its text nor its name is found."""
    stored = await hospital.add(hospital.a1, "letter.txt", "penicillin")
    assert names(await hospital.search(hospital.nurse, "penicillin")) == ["letter.txt"]
    await hospital.upload(hospital.a1, "letter.txt", "amoxicillin", overwrite=True)
    assert await SearchText.filter(file_id=stored.id, text="penicillin").exists()
    for q in ("penicillin", "penic*", "amoxicillin"):
        assert await hospital.search(hospital.nurse, q) == {
            "results": [],
            "nextCursor": None,
            "total": 0,
            "totalCapped": False,
        }, q
    assert names(await hospital.search(hospital.nurse, "letter")) == ["letter.txt"]
    await hospital.read()
    assert names(await hospital.search(hospital.nurse, "penicillin")) == []
    assert names(await hospital.search(hospital.nurse, "amoxicillin")) == ["letter.txt"]
    response = await hospital.client.delete(
        "/api/blobs/ward-a/Smith_John/letter.txt", headers=hospital.admin.headers
    )
    assert response.status_code == 200, await response.get_data(as_text=True)
    assert names(await hospital.search(hospital.admin, "amoxicillin")) == []
    assert names(await hospital.search(hospital.admin, "letter")) == []


async def test_pages_follow_one_another_best_first(hospital: Hospital) -> None:
    for n in range(5):
        await hospital.add(hospital.a1, f"n{n}.txt", "fever " * (n + 1) + "and other words " * 5)
    seen: list[str] = []
    cursor = None
    for _ in range(3):
        args = {"limit": "2", **({"cursor": cursor} if cursor else {})}
        body = await hospital.search(hospital.nurse, "fever", **args)
        assert body["total"] == 5
        seen += names(body)
        cursor = body["nextCursor"]
    assert cursor is None
    assert sorted(seen) == [f"n{n}.txt" for n in range(5)]
    assert seen[0] == "n4.txt"  # the most mentions ranks first
    # Ties (the same name match) come newest first.
    tied = await hospital.search(hospital.nurse, "n3")
    assert names(tied) == ["n3.txt"]


async def test_ties_are_newest_first(hospital: Hospital) -> None:
    for n in range(3):
        stored = await hospital.add(hospital.a1, f"same{n}.txt", "identical text about asthma")
        await StoredFile.filter(id=stored.id).update(
            last_modified=datetime(2020 + n, 1, 1, tzinfo=UTC)
        )
    body = await hospital.search(hospital.nurse, "asthma", limit="1")
    seen = names(body)
    while body["nextCursor"]:
        body = await hospital.search(hospital.nurse, "asthma", limit="1", cursor=body["nextCursor"])
        seen += names(body)
    assert seen == ["same2.txt", "same1.txt", "same0.txt"]


async def test_filters(hospital: Hospital) -> None:
    letter = await hospital.add(hospital.a1, "letter.pdf", "asthma", content_type="application/pdf")
    await hospital.add(hospital.a2, "note.txt", "asthma")
    await hospital.add(hospital.b1, "scan.png", "asthma", content_type="image/png")  # by OCR
    await StoredFile.filter(id=letter.id).update(
        last_modified=datetime(2024, 3, 10, 23, tzinfo=UTC)
    )
    search = hospital.search
    assert set(names(await search(hospital.admin, "asthma", container="ward-a"))) == {
        "letter.pdf",
        "note.txt",
    }
    only = await search(hospital.admin, "asthma", container="ward-a", folder="Jones_Mary")
    assert names(only) == ["note.txt"]
    assert names(await search(hospital.admin, "asthma", type="pdf")) == ["letter.pdf"]
    assert names(await search(hospital.admin, "asthma", type="image")) == ["scan.png"]
    assert names(await search(hospital.admin, "asthma", type="text")) == ["note.txt"]
    day = {"modifiedFrom": "2024-03-10", "modifiedTo": "2024-03-10"}
    assert names(await search(hospital.admin, "asthma", **day)) == ["letter.pdf"]
    assert names(await search(hospital.admin, "asthma", modifiedTo="2024-03-09")) == []
    assert len(names(await search(hospital.admin, "asthma", modifiedFrom="2024-03-11"))) == 2


BAD_INPUT = [
    ({"q": ""}, "Type a word to search for."),
    ({"q": "   "}, "Type a word to search for."),
    ({"q": "-- ** !!"}, "Type a word to search for."),
    ({"q": "-penicillin"}, "Type a word to search for, not only words to leave out."),
    ({"q": "x" * 201}, "The search is too long: use at most 200 characters."),
    ({"cursor": "not-a-cursor"}, "This page of results is no longer available: search again."),
    ({"cursor": "WzEsICJ4IiwgMV0"}, "This page of results is no longer available: search again."),
    ({"folder": "Smith_John"}, "Choose the container of the folder to search in."),
    (
        {"modifiedFrom": "2024-02-01", "modifiedTo": "2024-01-01"},
        "The first day of the date range comes after its last day.",
    ),
    ({"container": "nowhere"}, "Container not found"),
    ({"container": "ward-a", "folder": "nobody"}, "Folder not found"),
]


async def test_bad_input_is_a_readable_400(hospital: Hospital) -> None:
    for args, message in BAD_INPUT:
        query = {"q": "x", **args}
        q = query.pop("q")
        assert await hospital.search(hospital.admin, q, 400, **query) == {"message": message}
    for args in ({"limit": "0"}, {"limit": "51"}, {"limit": "many"}, {"type": "exe"}):
        assert (await hospital.search(hospital.admin, "x", 400, **args))["message"]
    for value in ("yesterday", "2024-02-30"):
        assert (await hospital.search(hospital.admin, "x", 400, modifiedFrom=value))["message"]


async def test_the_total_says_when_it_is_capped(
    hospital: Hospital, monkeypatch: pytest.MonkeyPatch
) -> None:
    for n in range(4):
        await hospital.add(hospital.a1, f"n{n}.txt", "asthma")
    monkeypatch.setattr(repository, "MATCH_CAP", 2)
    body = await hospital.search(hospital.admin, "asthma", limit="10")
    assert body["totalCapped"] is True and body["total"] >= 2


async def test_every_search_is_audited_and_the_query_is_never_logged(
    hospital: Hospital, caplog: pytest.LogCaptureFixture
) -> None:
    await hospital.add(hospital.a1, "letter.txt", LETTER)
    with caplog.at_level(logging.INFO):  # as the server logs (the drivers log queries at DEBUG)
        await hospital.search(hospital.nurse, "penicillin zebra", container="ward-a")
        await hospital.search(hospital.nurse, "amoxicillin")
    from bff.audit.service import flush

    await flush()
    entries = await audit_entries("search")
    assert [(e.user_id, e.details, e.container_name) for e in entries] == [
        (hospital.nurse.user.id, "search 'penicillin zebra', 0 results", "ward-a"),
        (hospital.nurse.user.id, "search 'amoxicillin', 1 results", ""),
    ]
    logged = "\n".join(r.getMessage() + str(r.__dict__) for r in caplog.records)
    assert "zebra" not in logged and "amoxicillin" not in logged
