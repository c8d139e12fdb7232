"""A held file (stored while the scanner was unavailable) is not there for anyone but admins
(issue 49, security review): a member of staff assigned to its folder who asks for it by name,
in any way, is answered exactly as for a file that does not exist; nothing they upload or do
tells them it is there or acts on it; nothing of it is lost meanwhile; and its release by a
clean scan is on record."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from bff.audit.models import AuditLog
from bff.files.models import FileVersion, StoredFile
from bff.files.names import PROFILE_IMAGE_NAME
from bff.files.reindex import reindex
from bff.files.retention import purge_expired
from bff.scan.rescan import rescan_files
from bff.users.models import Role
from tests import samples
from tests.factories import StaffMember, assign, make_staff
from tests.files.conftest import Ward
from tests.scan.test_scanning import scanned_ward
from tools.testclamd import RunningClamd

MADE_UP_VERSION = "20260101T000000000000Z-0badc0de"


@pytest.fixture
async def holding_ward(
    database_url: str, run_dir: Path, tmp_path: Path, clamd: RunningClamd
) -> AsyncIterator[Ward]:
    """A ward whose uploads are held while clamd is down, keeping one earlier version a file."""
    url = f"file://{tmp_path}/storage"
    async with scanned_ward(
        database_url, run_dir, url, clamd=clamd.address, scan_unavailable="hold", max_versions=1
    ) as ward:
        yield ward


async def _colleague(ward: Ward) -> StaffMember:
    """Another nurse of the folder, whose upload is the held one."""
    colleague = await make_staff(ward.settings, Role.NURSE)
    await assign(colleague.user, ward.container, ward.folder)
    return colleague


async def _answers(ward: Ward, who: StaffMember, probes: list[tuple[str, str]]) -> list[Any]:
    """(status, JSON body) of each probe (method, path under the folder) as who is answered."""
    answers = []
    for method, path in probes:
        response = await ward.client.open(
            ward.url(*path.split("/")), method=method, headers=who.headers
        )
        body = await response.get_json() if response.mimetype == "application/json" else None
        answers.append((method, path.partition("/")[2], response.status_code, body))
    return answers


def _probes(name: str, *version_ids: str) -> list[tuple[str, str]]:
    """Every request a member of staff can make on a file by its name."""
    probes = [
        ("GET", f"{name}/url"),
        ("GET", f"{name}/view"),
        ("GET", f"{name}/versions"),
        ("GET", f"{name}/viewer"),
        ("DELETE", name),
    ]
    for version_id in version_ids:
        probes += [
            ("GET", f"{name}/versions/{version_id}/url"),
            ("GET", f"{name}/versions/{version_id}/view"),
            ("POST", f"{name}/versions/{version_id}/restore"),
        ]
    return probes


async def test_a_held_file_answers_every_request_as_a_missing_one(
    holding_ward: Ward, scanner_down: RunningClamd
) -> None:
    """notes.txt's held content was uploaded over a clean one. Before: asking for a made-up
    version of it answered "Version not found" (a missing file: "File not found"), and the nurse
    could make its clean earlier version current over the held content."""
    ward = holding_ward
    colleague = await _colleague(ward)
    scanner_down.start()
    assert (await ward.upload(colleague, "notes.txt", b"first notes\n")).status_code == 201
    first = (await StoredFile.get(folder_id=ward.folder.id, name="notes.txt")).version_id
    assert first
    scanner_down.stop()
    held = await ward.upload(colleague, "notes.txt", b"held notes\n", query={"overwrite": "true"})
    assert held.status_code == 201
    assert (await StoredFile.get(folder_id=ward.folder.id, name="notes.txt")).scan_state == "held"

    asked = await _answers(ward, ward.nurse, _probes("notes.txt", first, MADE_UP_VERSION))
    missing = await _answers(ward, ward.nurse, _probes("absent.txt", first, MADE_UP_VERSION))
    assert asked == missing
    # Nothing was done to it.
    row = await StoredFile.get(folder_id=ward.folder.id, name="notes.txt")
    assert (row.scan_state, await ward.stored("notes.txt")) == ("held", b"held notes\n")
    assert [v.version_id for v in await FileVersion.filter(name="notes.txt")] == [first]


async def test_a_held_profile_image_answers_as_none(
    holding_ward: Ward, scanner_down: RunningClamd
) -> None:
    """Before: the held photo's route answered "File not found" where a folder without one
    answers "This folder has no profile image."."""
    ward = holding_ward
    colleague = await _colleague(ward)
    probes = [("GET", "profile-image"), *_probes(PROFILE_IMAGE_NAME, MADE_UP_VERSION)]
    without = await _answers(ward, ward.nurse, probes)
    assert without[0][2:] == (404, {"message": "This folder has no profile image."})

    photo = await ward.upload(colleague, "me.jpg", samples.jpeg(), isProfileImage="true")
    assert photo.status_code == 201, await photo.get_json()
    row = await StoredFile.get(folder_id=ward.folder.id, name=PROFILE_IMAGE_NAME)
    assert row.scan_state == "held"
    assert await _answers(ward, ward.nurse, probes) == without
    assert (await ward.listing(ward.nurse))["hasProfileImage"] is False
    assert (await ward.listing(ward.admin))["hasProfileImage"] is True


async def test_a_held_earlier_version_is_not_counted_nor_told_apart(
    holding_ward: Ward, scanner_down: RunningClamd
) -> None:
    """The nurse's upload of a held file's name is stored over it (the held content kept as an
    earlier version). Before: her answer and her listing counted 2 versions where she can see
    one, and the held version's link answered "File not found" where a made-up version's
    answers "Version not found"."""
    ward = holding_ward
    colleague = await _colleague(ward)
    assert (await ward.upload(colleague, "notes.txt", b"held notes\n")).status_code == 201
    scanner_down.start()
    mine = await ward.upload(ward.nurse, "notes.txt", b"my notes\n")
    assert mine.status_code == 201
    body = await mine.get_json()
    assert (body["replaced"], body["blob"]["versionCount"]) == (False, 1)
    [blob] = (await ward.listing(ward.nurse))["blobs"]
    assert (blob["name"], blob["versionCount"]) == ("notes.txt", 1)
    [admins] = (await ward.listing(ward.admin))["blobs"]
    assert admins["versionCount"] == 2

    held = await FileVersion.get(folder_id=ward.folder.id, name="notes.txt")
    assert held.scan_state == "held"
    asked = await _answers(ward, ward.nurse, _probes("notes.txt", held.version_id)[5:])
    made_up = await _answers(ward, ward.nurse, _probes("notes.txt", MADE_UP_VERSION)[5:])
    assert [a[2:] for a in asked] == [m[2:] for m in made_up]
    assert {a[3]["message"] for a in asked} == {"Version not found"}


async def test_a_held_file_of_another_spelling_does_not_refuse_an_upload(
    holding_ward: Ward,
) -> None:
    """A file another tool wrote into storage under the nurse's name in another Unicode
    spelling (names were not normalised then), indexed held by `storage reindex` until the
    rescan scans it. Before: her upload was refused 409 "A file named 'café.txt' is already in
    this folder, spelt with other Unicode characters": she learnt the held file's name. Now her
    upload is stored under her spelling beside it; the held one is kept, the admins' only."""
    ward = holding_ward
    composed, decomposed = "caf\u00e9.txt", "cafe\u0301.txt"

    async def chunks() -> AsyncIterator[bytes]:
        yield b"held menu\n"

    await ward.storage.write(ward.container.name, ward.folder.name, decomposed, chunks())
    assert (await reindex(ward.storage)).files_added == 1
    row = await StoredFile.get(folder_id=ward.folder.id, name=decomposed)
    assert row.scan_state == "held"

    # For an admin, who sees it, the other spelling still refuses the name.
    admins = await ward.upload(ward.admin, composed, b"admin's menu\n")
    assert admins.status_code == 409
    assert "spelt with other Unicode characters" in (await admins.get_json())["message"]

    hers = await ward.upload(ward.nurse, composed, b"my menu\n")
    assert hers.status_code == 201, await hers.get_json()
    assert (await hers.get_json())["blob"]["name"] == composed
    assert [b["name"] for b in (await ward.listing(ward.nurse))["blobs"]] == [composed]
    names = {b["name"] for b in (await ward.listing(ward.admin))["blobs"]}
    assert names == {composed, decomposed}
    assert await ward.stored(decomposed) == b"held menu\n"
    assert await ward.stored(composed) == b"my menu\n"


async def test_a_held_earlier_version_outlives_the_version_limit(
    holding_ward: Ward, scanner_down: RunningClamd
) -> None:
    """BFF_MAX_VERSIONS=1. Before: two uploads of the held file's name by a nurse who cannot
    see it pushed the held content past the limit, and the retention purged it unseen."""
    ward = holding_ward
    colleague = await _colleague(ward)
    assert (await ward.upload(colleague, "notes.txt", b"held notes\n")).status_code == 201
    scanner_down.start()
    for text in (b"second\n", b"third\n"):
        upload = await ward.upload(ward.nurse, "notes.txt", text, query={"overwrite": "true"})
        assert upload.status_code == 201
    report = await purge_expired(ward.storage, ward.settings)
    assert report.ran
    kept = await FileVersion.filter(folder_id=ward.folder.id, name="notes.txt").order_by("id")
    assert [v.scan_state for v in kept] == ["held", "clean"]  # the limit applies to the rest
    base = ward.url("notes.txt", "versions", kept[0].version_id, "view")
    held = await ward.client.get(base, headers=ward.admin.headers)
    assert (held.status_code, await held.get_data()) == (200, b"held notes\n")


async def test_a_held_files_release_is_audited(
    holding_ward: Ward, scanner_down: RunningClamd
) -> None:
    """Before: a held file became visible to its folder's staff with nothing on record."""
    ward = holding_ward
    colleague = await _colleague(ward)
    assert (await ward.upload(colleague, "notes.txt", b"held notes\n")).status_code == 201
    scanner_down.start()
    assert (await ward.upload(colleague, "clean.txt", b"clean notes\n")).status_code == 201
    assert await rescan_files(ward.storage) == 1  # only the held one is due now

    [entry] = await AuditLog.filter(operation="file_released")
    assert (entry.container_name, entry.folder_name, entry.blob_name) == (
        ward.container.name,
        ward.folder.name,
        "notes.txt",
    )
    assert (entry.user_id, entry.name) == (None, "system")
    assert colleague.user.name in entry.details and "scanned clean" in entry.details
    assert [b["name"] for b in (await ward.listing(ward.nurse))["blobs"]] == [
        "clean.txt",
        "notes.txt",
    ]
