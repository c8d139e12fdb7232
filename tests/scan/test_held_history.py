"""A held content (stored while the scanner was unavailable) stays the admins' only when it
becomes an earlier version or goes to the trash, and a restore brings its state back (issue 49,
migration 0029)."""

from __future__ import annotations

from bff.files.models import FileVersion, StoredFile
from bff.scan.rescan import rescan_files
from tests.files.conftest import Ward
from tools.testclamd import RunningClamd


async def _held_notes(ward: Ward, scanner_down: RunningClamd) -> None:
    """notes.txt uploaded held while clamd is down, then clamd back."""
    assert (await ward.upload(ward.nurse, "notes.txt", b"held notes\n")).status_code == 201
    scanner_down.start()
    row = await StoredFile.get(folder_id=ward.folder.id, name="notes.txt")
    assert row.scan_state == "held"


async def test_a_held_content_overwritten_stays_the_admins_only(
    holding_ward: Ward, scanner_down: RunningClamd
) -> None:
    ward = holding_ward
    await _held_notes(ward, scanner_down)
    replaced = await ward.upload(
        ward.admin, "notes.txt", b"clean notes\n", query={"overwrite": "true"}
    )
    assert replaced.status_code in (200, 201), await replaced.get_json()
    version = await FileVersion.get(folder_id=ward.folder.id, name="notes.txt")
    assert version.scan_state == "held"

    base = ward.url("notes.txt")
    nurse = await ward.client.get(f"{base}/versions", headers=ward.nurse.headers)
    assert [v["current"] for v in (await nurse.get_json())["versions"]] == [True]
    admin = await ward.client.get(f"{base}/versions", headers=ward.admin.headers)
    assert [v["current"] for v in (await admin.get_json())["versions"]] == [True, False]
    held = f"{base}/versions/{version.version_id}"
    for path in (f"{held}/url", f"{held}/view"):
        response = await ward.client.get(path, headers=ward.nurse.headers)
        assert response.status_code == 404, path
    restore = await ward.client.post(f"{held}/restore", headers=ward.nurse.headers)
    assert restore.status_code == 404
    assert (await ward.client.get(f"{held}/url", headers=ward.admin.headers)).status_code == 200

    # An admin makes it current again: it is held again, the admins' only.
    restore = await ward.client.post(f"{held}/restore", headers=ward.admin.headers)
    assert restore.status_code == 200
    row = await StoredFile.get(folder_id=ward.folder.id, name="notes.txt")
    assert row.scan_state == "held"
    assert "notes.txt" not in [b["name"] for b in (await ward.listing(ward.nurse))["blobs"]]


async def test_a_held_file_restored_from_the_trash_is_held_again(
    holding_ward: Ward, scanner_down: RunningClamd
) -> None:
    ward = holding_ward
    await _held_notes(ward, scanner_down)
    deleted = await ward.client.delete(ward.url("notes.txt"), headers=ward.admin.headers)
    assert deleted.status_code == 200
    restored = await ward.client.post(
        ward.url("trash", "notes.txt", "restore"), headers=ward.admin.headers
    )
    assert restored.status_code == 200, await restored.get_json()
    row = await StoredFile.get(folder_id=ward.folder.id, name="notes.txt")
    assert row.scan_state == "held"
    assert "notes.txt" not in [b["name"] for b in (await ward.listing(ward.nurse))["blobs"]]
    admin = await ward.listing(ward.admin)
    assert [(b["name"], b["scanState"]) for b in admin["blobs"]] == [("notes.txt", "held")]


async def test_a_held_file_is_not_counted_for_those_who_may_not_see_it(
    holding_ward: Ward, scanner_down: RunningClamd
) -> None:
    """The nurse's folder statistics leave the held file out until a scan lets it in."""
    ward = holding_ward
    await _held_notes(ward, scanner_down)

    async def counts() -> tuple[int, int]:
        stats = await ward.client.get(
            "/api/assignments/my-assignments/stats", headers=ward.nurse.headers
        )
        folders = await ward.client.get(
            "/api/assignments/my-assignments/folders", headers=ward.nurse.headers
        )
        mine = [
            f["totalFiles"]
            for f in (await folders.get_json())["folders"]
            if f["folderName"] == ward.folder.name
        ]
        return (await stats.get_json())["summary"]["totalFiles"], mine[0]

    assert await counts() == (0, 0)
    assert await rescan_files(ward.storage) == 1
    assert await counts() == (1, 1)


async def test_a_held_files_name_is_free_for_those_who_may_not_see_it(
    holding_ward: Ward, scanner_down: RunningClamd
) -> None:
    """A nurse's upload of a held file's name is not refused with 409 (that would tell the name
    is there): it is stored, and the held content becomes an earlier version, still held."""
    ward = holding_ward
    await _held_notes(ward, scanner_down)
    upload = await ward.upload(ward.nurse, "notes.txt", b"new notes\n")
    assert upload.status_code == 201, await upload.get_json()
    assert (await upload.get_json())["replaced"] is False
    listing = await ward.listing(ward.nurse)
    assert [(b["name"], b["scanState"]) for b in listing["blobs"]] == [("notes.txt", "clean")]
    assert await ward.stored("notes.txt") == b"new notes\n"
    version = await FileVersion.get(folder_id=ward.folder.id, name="notes.txt")
    assert version.scan_state == "held"
    base = ward.url("notes.txt")
    nurse = await ward.client.get(f"{base}/versions", headers=ward.nurse.headers)
    assert len((await nurse.get_json())["versions"]) == 1
    admin = await ward.client.get(f"{base}/versions", headers=ward.admin.headers)
    assert len((await admin.get_json())["versions"]) == 2
    # For an admin, who sees it, the name is taken as before.
    again = await ward.upload(ward.admin, "notes.txt", b"more notes\n")
    assert again.status_code == 409
