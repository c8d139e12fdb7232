"""The viewer's text layer through the real app, its text job in the real worker pool (real
pdfium, real tesseract): a page's words with their boxes, find in the document, a copy's audit
entry; words and find only by the links of an audited opening; the version the viewer opened
only (409 after a new one), nothing of another folder or of held content (404); a find bounded
in time, in turns and per user."""

from __future__ import annotations

import json
import time
from typing import Any
from urllib.parse import urlencode

import pytest

from bff.audit import service as audit_service
from bff.auth.links import LINK_INVALID
from bff.auth.policy import NO_LINK
from bff.files.models import StoredFile
from bff.files.service import FILE_NOT_FOUND
from bff.files.thumbnails import content_id
from bff.files.viewer import FILE_CHANGED
from bff.search import text_layer, words_repository
from bff.search.models import PageWords
from bff.search.text_layer import FIND_BUSY, FIND_TOO_LONG, NO_TEXT
from bff.search.words import MAX_PAGE_JSON, encoded
from bff.services import app_services
from bff.workers import process_alive
from tests.factories import StaffMember
from tests.files.conftest import Ward
from tests.helpers import audit_entries, error_message
from tests.search.conftest import png_of, scanned_pdf, settled, text_pdf

LETTER = text_pdf(
    "Discharge letter mentions amoxicillin. Crème brûlée for Müller.",
    "Second page: asthma, amoxicillin given",
)


async def _uploaded(ward: Ward, name: str, data: bytes, **query: str) -> dict[str, Any]:
    """Upload as the nurse, wait for the text job, open the viewer: its answer."""
    response = await ward.upload(ward.nurse, name, data, query=query or None)
    assert response.status_code == 201, await response.get_data()
    assert (await settled(ward, name)).state == "done"
    return await _open(ward, name, ward.nurse)


async def _open(ward: Ward, name: str, who: StaffMember) -> dict[str, Any]:
    response = await ward.client.get(ward.url(name, "viewer"), headers=who.headers)
    assert response.status_code == 200, await response.get_data()
    body: dict[str, Any] = await response.get_json()
    return body


def _url(opened: dict[str, Any], what: str, **query: Any) -> str:
    """The opening's link to a page's words (page=) or to find (q=)."""
    if what == "words":
        return str(opened["wordsUrl"]).replace("{page}", str(query["page"]))
    return f"{opened['findUrl']}&{urlencode(query)}"


async def _get(ward: Ward, opened: dict[str, Any], what: str, status: int, **query: Any) -> Any:
    """words or find by the opening's link alone (no session header), its answer's body."""
    response = await ward.client.get(_url(opened, what, **query))
    body = await response.get_json()
    assert response.status_code == status, body
    return body


def _spans(found: dict[str, Any]) -> list[tuple[int, int, int]]:
    return [(m["page"], m["start"], m["end"]) for m in found["matches"]]


async def test_a_pdf_s_words_boxes_and_matches(reading_ward: Ward) -> None:
    ward = reading_ward
    opened = await _uploaded(ward, "letter.pdf", LETTER)
    assert opened["textLayer"] is True

    page = await _get(ward, opened, "words", 200, page=1)
    assert page["page"] == 1
    texts = [w["text"] for w in page["words"]]
    assert texts[:4] == ["Discharge", "letter", "mentions", "amoxicillin."]
    assert "Müller." in texts
    boxes = [w["box"] for w in page["words"]]
    for x0, y0, x1, y1 in boxes:
        assert 0 <= x0 < x1 <= 1 and 0 <= y0 < y1 <= 1
    # Top-left first (PDF's own origin is bottom-left), left to right on the line.
    assert boxes[0][1] < 0.1 and boxes[0][0] < 0.1
    assert boxes[0][2] <= boxes[1][0]
    second = await _get(ward, opened, "words", 200, page=2)
    assert [w["text"] for w in second["words"]][:2] == ["Second", "page:"]
    missing = await _get(ward, opened, "words", 404, page=3)
    assert missing["message"] == NO_TEXT

    async def find(q: str) -> dict[str, Any]:
        body: dict[str, Any] = await _get(ward, opened, "find", 200, q=q)
        return body

    found = await find("Amoxicillin")
    assert (found["total"], found["capped"], found["partial"]) == (2, False, False)
    assert _spans(found) == [(1, 3, 4), (2, 3, 4)]
    assert _spans(await find("creme brulee")) == [(1, 4, 5), (1, 5, 6)]
    assert _spans(await find('"crème brûlée"')) == [(1, 4, 6)]
    assert _spans(await find('"brulee creme"')) == []
    assert _spans(await find("MULLER")) == [(1, 7, 8)]
    assert _spans(await find("amox* given")) == [(2, 3, 4), (2, 4, 5)]  # both on one page only
    assert (await find("penicillin"))["total"] == 0
    too_long = await _get(ward, opened, "find", 400, q="x" * 201)
    assert too_long["message"] == FIND_TOO_LONG
    await _get(ward, opened, "find", 400, q="-asthma")
    await _get(ward, opened, "find", 400, q="")
    await _get(ward, opened, "words", 400, page=0)


async def test_an_ocr_d_scan_s_words_from_the_same_ocr_run(reading_ward: Ward) -> None:
    ward = reading_ward
    for name, data in (
        ("photo.png", png_of("referral letter")),
        ("scan.pdf", scanned_pdf("x", "penicillin allergy")),
    ):
        opened = await _uploaded(ward, name, data)
        assert opened["textLayer"] is True, name
    photo = await _open(ward, "photo.png", ward.nurse)
    page = await _get(ward, photo, "words", 200, page=1)
    words = [(w["text"].lower(), w["box"]) for w in page["words"]]
    assert [text for text, _ in words] == ["referral", "letter"]
    (_, (x0, y0, x1, y1)), (_, (x2, _, _, _)) = words
    assert 0 < x0 < x1 < x2 < 1 and 0 < y0 < y1 < 1
    found = await _get(ward, photo, "find", 200, q="Referral")
    assert _spans(found) == [(1, 0, 1)]
    scan = await _open(ward, "scan.pdf", ward.nurse)
    found = await _get(ward, scan, "find", 200, q='"penicillin allergy"')
    assert _spans(found) == [(2, 0, 2)]


async def test_a_file_without_words_has_no_text_layer(reading_ward: Ward) -> None:
    ward = reading_ward
    opened = await _uploaded(ward, "note.txt", b"Penicillin allergy noted.")
    assert opened["textLayer"] is False
    assert (opened["wordsUrl"], opened["findUrl"]) == (None, None)


async def test_a_new_version_is_409_and_the_old_words_go(reading_ward: Ward) -> None:
    ward = reading_ward
    opened = await _uploaded(ward, "letter.pdf", LETTER)
    old = opened["versionId"]
    new = await _uploaded(ward, "letter.pdf", text_pdf("Replaced letter"), overwrite="true")
    assert new["versionId"] != old and new["textLayer"] is True
    for what, query in (("words", {"page": 1}), ("find", {"q": "amoxicillin"})):
        body = await _get(ward, opened, what, 409, **query)
        assert body["message"] == FILE_CHANGED
    copied = await ward.client.post(
        ward.url("letter.pdf", "viewer", old, "copied"),
        json={"page": 1, "characters": 5},
        headers=ward.nurse.headers,
    )
    assert await error_message(copied, 409) == FILE_CHANGED
    row = await StoredFile.get(folder_id=ward.folder.id, name="letter.pdf")
    stored = await PageWords.filter(file_id=row.id).values_list("version_id", "page")
    assert stored == [(row.version_id, 1)]  # the earlier content's words removed
    page = await _get(ward, new, "words", 200, page=1)
    assert [w["text"] for w in page["words"]] == ["Replaced", "letter"]


async def test_another_folder_and_held_content_are_404(reading_ward: Ward) -> None:
    ward = reading_ward
    opened = await _uploaded(ward, "letter.pdf", LETTER)
    version = opened["versionId"]
    # The other folder: the admin's upload, the nurse not assigned there.
    response = await ward.upload(ward.admin, "other.pdf", LETTER, folder=ward.other)
    assert response.status_code == 201
    other = await StoredFile.get(folder_id=ward.other.id, name="other.pdf")
    url = ward.url("other.pdf", "viewer", other.version_id or "x", "words", folder=ward.other)
    refused = await ward.client.get(url, headers=ward.nurse.headers, query_string={"page": 1})
    assert refused.status_code == 404
    url = ward.url("other.pdf", "viewer", other.version_id or "x", "copied", folder=ward.other)
    refused = await ward.client.post(
        url, json={"page": 1, "characters": 3}, headers=ward.nurse.headers
    )
    assert refused.status_code == 404
    await ward.client.get(ward.url("letter.pdf", "viewer"))  # no session: 401
    anonymous = await ward.client.get(
        ward.url("letter.pdf", "viewer", version, "words"), query_string={"page": 1}
    )
    assert anonymous.status_code == 401
    # Held content (not scanned yet): as for a missing file, the admins' only.
    await StoredFile.filter(folder_id=ward.folder.id, name="letter.pdf").update(scan_state="held")
    for what, query in (("words", {"page": 1}), ("find", {"q": "asthma"})):
        held = await _get(ward, opened, what, 404, **query)
        assert held["message"] == FILE_NOT_FOUND
    await _get(ward, await _open(ward, "letter.pdf", ward.admin), "words", 200, page=1)


async def test_copying_is_audited_and_a_storm_is_one_entry_with_its_count(
    reading_ward: Ward, monkeypatch: pytest.MonkeyPatch
) -> None:
    ward = reading_ward
    version = (await _uploaded(ward, "letter.pdf", LETTER))["versionId"]
    monkeypatch.setattr(audit_service, "_clock", lambda: 0.0)  # the minute frozen
    for page in (1, 2, 2, 2):
        response = await ward.client.post(
            ward.url("letter.pdf", "viewer", version, "copied"),
            json={"page": page, "characters": 42},
            headers=ward.nurse.headers,
        )
        assert response.status_code == 204, await response.get_data()
    bad = await ward.client.post(
        ward.url("letter.pdf", "viewer", version, "copied"),
        json={"page": "one"},
        headers=ward.nurse.headers,
    )
    assert bad.status_code == 400
    [entry] = await audit_entries("file_copy")
    assert (entry.user_id, entry.container_name, entry.folder_name, entry.blob_name) == (
        ward.nurse.user.id,
        ward.container.name,
        ward.folder.name,
        "letter.pdf",
    )
    assert entry.details == "copied text from page 1 (42 characters)"
    await audit_service.flush()
    first, counted = await audit_entries("file_copy")
    assert first.id == entry.id
    assert counted.blob_name == "letter.pdf" and counted.folder_name == ward.folder.name
    assert counted.details == "copied text again repeated=3 within 60s"


async def test_words_and_find_only_by_the_link_of_an_audited_opening(reading_ward: Ward) -> None:
    """The review's replay: an assistant assigned to the folder knows the version (thumbnails'
    URLs and .../versions name it) and asks for the words by the session: refused, nothing read
    without a `file_view` entry; a link of the viewer's other routes opens neither."""
    ward = reading_ward
    await _uploaded(ward, "letter.pdf", LETTER)
    await audit_service.flush()
    viewed_before = len(await audit_entries("file_view"))
    row = await StoredFile.get(folder_id=ward.folder.id, name="letter.pdf")
    version = content_id(row.version_id)
    for what, query in (("words", {"page": 1}), ("find", {"q": "amoxicillin"})):
        response = await ward.client.get(
            ward.url("letter.pdf", "viewer", version, what),
            headers=ward.assistant.headers,
            query_string=query,
        )
        assert await error_message(response, 404) == NO_LINK
    await audit_service.flush()
    assert len(await audit_entries("file_view")) == viewed_before

    opened = await _open(ward, "letter.pdf", ward.assistant)
    page_link = str(opened["pageUrl"]).rpartition("link=")[2]
    for what, query in (("words", {"page": 1}), ("find", {"q": "amoxicillin"})):
        response = await ward.client.get(
            ward.url("letter.pdf", "viewer", version, what),
            query_string={**query, "link": page_link},
        )
        assert await error_message(response, 403) == LINK_INVALID
    words = await _get(ward, opened, "words", 200, page=1)
    assert words["words"][0]["text"] == "Discharge"
    assert (await _get(ward, opened, "find", 200, q="amoxicillin"))["total"] == 2
    await audit_service.flush()
    [view] = [e for e in await audit_entries("file_view") if e.user_id == ward.assistant.user.id]
    assert (view.blob_name, view.details) == ("letter.pdf", "in the viewer")


# A "word" of 199 characters that is 100 tokens, a page of them as large as a page's words may
# be stored (1 MB): the review's flood, matched token by token, ran 16.7 s for 4 pages.
FLOOD_WORD = ".".join(["a"] * 100)
FLOOD_PAGE = encoded([(FLOOD_WORD, 0, 0, 10, 10)] * (MAX_PAGE_JSON // len(FLOOD_WORD)))
# Every phrase found on every page, then a word on none, last: each page matched in full.
FLOOD_QUERY = " ".join(f'"{" ".join(["a"] * n)}"' for n in range(2, 12)) + " zzz"


async def _flooded(ward: Ward, pages: int) -> dict[str, Any]:
    """letter.pdf opened by the nurse, `pages` flood pages after its own two, written to
    page_words as the reviewer did."""
    opened = await _uploaded(ward, "letter.pdf", LETTER)
    row = await StoredFile.get(folder_id=ward.folder.id, name="letter.pdf")
    flood = [(page, FLOOD_PAGE) for page in range(3, 3 + pages)]
    await words_repository.insert_words(row.id, row.version_id or "", flood)
    return opened


async def test_a_find_answers_what_it_found_within_its_time(
    reading_ward: Ward, monkeypatch: pytest.MonkeyPatch
) -> None:
    ward = reading_ward
    assert len(FLOOD_QUERY) <= 200 and len(json.loads(FLOOD_PAGE)) > 4000
    opened = await _flooded(ward, 6)
    monkeypatch.setattr(text_layer, "FIND_SECONDS", 0.5)
    started = time.monotonic()
    found = await _get(ward, opened, "find", 200, q=FLOOD_QUERY)
    took = time.monotonic() - started
    assert (found["partial"], found["total"], found["capped"]) == (True, 0, False)
    assert took < 0.5 + 5  # the deadline, and a loaded machine's slack (not 6 pages' time)
    # Matched in the finds' own worker process, never the server's (its GIL, every request's).
    assert app_services(ward.app).search.finds.workers.pids
    # The letter's own pages are matched before the flood's (in page order, within the time).
    found = await _get(ward, opened, "find", 200, q="amoxicillin")
    assert _spans(found) == [(1, 3, 4), (2, 3, 4)]


async def test_a_find_whose_worker_outlives_its_time_answers_partial(reading_ward: Ward) -> None:
    ward = reading_ward
    opened = await _flooded(ward, 2)
    workers = app_services(ward.app).search.finds.workers
    await _get(ward, opened, "find", 200, q="amoxicillin")
    [first] = workers.pids
    workers.seconds = 0.01  # the worker killed long before the find's own deadline
    found = await _get(ward, opened, "find", 200, q=FLOOD_QUERY)
    assert (found["partial"], found["total"]) == (True, 0)
    assert not process_alive(first)  # killed, and the next find starts a new one
    workers.seconds = text_layer.FIND_SECONDS + text_layer.FIND_WORKER_SLACK
    found = await _get(ward, opened, "find", 200, q="amoxicillin")
    assert _spans(found) == [(1, 3, 4), (2, 3, 4)]


async def test_a_find_whose_worker_fails_says_so_never_a_long_document(
    reading_ward: Ward, caplog: pytest.LogCaptureFixture
) -> None:
    ward = reading_ward
    opened = await _uploaded(ward, "letter.pdf", LETTER)
    workers = app_services(ward.app).search.finds.workers
    workers._preload = ("bff.no_such_module",)  # every worker dies as it starts
    response = await ward.client.get(_url(opened, "find", q="amoxicillin"))
    assert await error_message(response, 503) == text_layer.FIND_FAILED
    assert "a find's worker failed" in caplog.text
    assert "amoxicillin" not in caplog.text  # what was looked for is patient data


async def test_a_user_s_finds_are_limited_per_minute_and_per_process(
    reading_ward: Ward, monkeypatch: pytest.MonkeyPatch
) -> None:
    ward = reading_ward
    opened = await _uploaded(ward, "letter.pdf", LETTER)
    guard = app_services(ward.app).search.finds
    # Every turn taken (finds running): the next waits a moment, then 503 with Retry-After.
    monkeypatch.setattr(text_layer, "FIND_WAIT_SECONDS", 0.05)
    async with guard.turn(), guard.turn():
        busy = await ward.client.get(_url(opened, "find", q="asthma"))
        assert await error_message(busy, 503) == FIND_BUSY
        assert busy.headers["Retry-After"] == text_layer.FIND_BUSY_RETRY_SECONDS
    guard.per_minute = 3
    for _ in range(2):
        await _get(ward, opened, "find", 200, q="asthma")
    refused = await ward.client.get(_url(opened, "find", q="asthma"))
    message = await error_message(refused, 429)
    assert message.startswith("Too many finds in a short time: wait ")
    assert 0 < int(refused.headers["Retry-After"]) <= 60
    # Another user's finds are theirs.
    admins = await _open(ward, "letter.pdf", ward.admin)
    await _get(ward, admins, "find", 200, q="asthma")


async def test_a_flood_of_copies_is_refused_past_60_a_minute_per_user(reading_ward: Ward) -> None:
    """The review's replay: a client posting copies as fast as it can. The user's first 60 in a
    minute are recorded (a text file's as a PDF's: whatever the viewer shows as text), the rest
    refused (429 with Retry-After, before the database is asked) and not audited; another user's
    copies are theirs; a copy's page and count are bounded."""
    ward = reading_ward
    opened = await _uploaded(ward, "note.txt", b"Penicillin allergy noted.")
    assert opened["kind"] == "text"
    url = ward.url("note.txt", "viewer", opened["versionId"], "copied")
    statuses = []
    for _ in range(text_layer.COPIES_PER_MINUTE + 20):
        response = await ward.client.post(
            url, json={"page": 1, "characters": 25}, headers=ward.nurse.headers
        )
        statuses.append(response.status_code)
    assert statuses == [204] * text_layer.COPIES_PER_MINUTE + [429] * 20
    message = await error_message(response, 429)
    assert message.startswith("Too many copies in a short time: wait ")
    assert message.endswith(" before copying more text.")
    assert 0 < int(response.headers["Retry-After"]) <= 60
    await audit_service.flush()
    first, counted = await audit_entries("file_copy")
    assert first.blob_name == "note.txt"
    assert first.details == "copied text from page 1 (25 characters)"
    repeats = text_layer.COPIES_PER_MINUTE - 1
    assert counted.details == f"copied text again repeated={repeats} within 60s"
    # Another user's copies are theirs.
    admins = await ward.client.post(
        url, json={"page": 1, "characters": 25}, headers=ward.admin.headers
    )
    assert admins.status_code == 204
    for body in (
        {"page": 0, "characters": 1},
        {"page": 100_001, "characters": 1},
        {"page": 1, "characters": -1},
        {"page": 1, "characters": 100_000_001},
    ):
        bad = await ward.client.post(url, json=body, headers=ward.admin.headers)
        assert bad.status_code == 400, body
