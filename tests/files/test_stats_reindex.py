"""File statistics computed by the database, and the index rebuilt from storage."""

from __future__ import annotations

from collections.abc import AsyncIterator

from bff.containers.models import Container, Folder
from bff.files.models import StoredFile
from bff.files.names import RTF_ORIGINAL_PREFIX
from bff.files.reindex import reindex
from tests.factories import assign, make_container, make_file, make_folder
from tests.files.conftest import Ward


async def _chunks(data: bytes) -> AsyncIterator[bytes]:
    yield data


async def test_my_assignment_stats_in_one_request(ward: Ward) -> None:
    second = await make_container("b-ward-2")
    folder_b = await make_folder(second, "patient-10")
    await assign(ward.nurse.user, second, folder_b)
    empty_folder = await make_folder(ward.container, "patient-3")
    await assign_folder(ward, empty_folder)
    for name in ("a.pdf", "b.PDF", "c.txt", "README"):
        await make_file(ward.storage, ward.folder, name)
    await make_file(ward.storage, folder_b, "scan.pdf")
    await make_file(ward.storage, ward.other, "secret.pdf")  # not assigned: never counted
    response = await ward.client.get(
        "/api/assignments/my-assignments/stats", headers=ward.nurse.headers
    )
    assert response.status_code == 200
    body = await response.get_json()
    assert body["summary"] == {
        "totalFiles": 5,
        "fileTypes": {"pdf": 3, "none": 1, "txt": 1},
        "containerCount": 2,
        "folderCount": 3,
    }
    assert body["folders"] == [
        {
            "containerName": "b-ward-2",
            "folderName": "patient-10",
            "totalFiles": 1,
            "fileTypes": {"pdf": 1},
            "patient": None,
        },
        {
            "containerName": ward.container.name,
            "folderName": "patient-1",
            "totalFiles": 4,
            "fileTypes": {"pdf": 2, "none": 1, "txt": 1},
            "patient": None,
        },
        {
            "containerName": ward.container.name,
            "folderName": "patient-3",
            "totalFiles": 0,
            "fileTypes": {},
            "patient": None,
        },
    ]
    nobody = await ward.client.get(
        "/api/assignments/my-assignments/stats", headers=ward.admin.headers
    )
    assert (await nobody.get_json())["summary"]["totalFiles"] == 0


async def assign_folder(ward: Ward, folder: Folder) -> None:
    from bff.assignments.models import FolderAssignment

    await FolderAssignment.create(user=ward.nurse.user, folder=folder)


async def test_reindex_makes_the_index_match_storage(any_ward: Ward) -> None:
    ward = any_ward
    storage, c = ward.storage, ward.container.name
    indexed = await make_file(storage, ward.folder, "kept.txt", b"kept")
    await make_file(storage, ward.folder, "vanished.txt", b"gone soon")
    await storage.delete(c, ward.folder.name, "vanished.txt")
    await storage.write(c, ward.folder.name, "kept.txt", _chunks(b"changed by another tool"))
    # Files put there by other tools, an RTF pair and a profile image.
    await storage.write(c, ward.folder.name, "scan.pdf", _chunks(b"%PDF"))
    await storage.write(c, ward.folder.name, RTF_ORIGINAL_PREFIX + "n.rtf", _chunks(b"{\\rtf1 x}"))
    await storage.write(c, ward.folder.name, "n.txt", _chunks(b"x"))
    await storage.write(c, ward.folder.name, "patient-profile.jpg", _chunks(b"\xff\xd8\xff"))
    await storage.write("imported-ward", "patient-7", "old.doc", _chunks(b"doc"))
    await storage.write("Bad Name!", "patient-1", "x.txt", _chunks(b"x"))

    report = await reindex(storage)

    assert report.files_removed == 1
    assert report.files_updated == 1
    assert report.files_added == 4  # scan.pdf, n.txt, the profile image, old.doc
    assert "imported-ward" in report.containers_added
    assert "imported-ward/patient-7" in report.folders_added
    assert "Bad Name!" in report.skipped
    listing = await ward.listing(ward.nurse)
    by_name = {b["name"]: b for b in listing["blobs"]}
    assert set(by_name) == {"kept.txt", "scan.pdf", "n.txt", "patient-profile.jpg"}
    assert by_name["kept.txt"]["contentLength"] == len(b"changed by another tool")
    assert by_name["kept.txt"]["contentType"] == indexed.content_type
    assert by_name["n.txt"]["isConvertedFromRtf"] is True
    assert by_name["n.txt"]["originalRtfFileName"] == "n.rtf"
    assert listing["hasProfileImage"] is True
    containers = await ward.client.get("/api/assignments/containers", headers=ward.admin.headers)
    assert "imported-ward" in (await containers.get_json())["containers"]
    again = await reindex(storage)  # idempotent
    assert (again.files_added, again.files_updated, again.files_removed) == (0, 0, 0)
    assert again.containers_added == [] and again.folders_added == []


async def test_reindex_drops_files_of_folders_gone_from_storage(ward: Ward) -> None:
    ghost = await make_folder(ward.container, "patient-99")
    await StoredFile.create(
        folder=ghost,
        name="ghost.txt",
        content_type="text/plain",
        size=1,
        last_modified=(await Container.get(id=ward.container.id)).created_at,
        extension="txt",
    )
    report = await reindex(ward.storage)
    assert report.files_removed >= 1
    assert not await StoredFile.exists(folder=ghost)


async def test_the_reindex_command_reports_its_changes(ward: Ward) -> None:
    await ward.storage.write(ward.container.name, ward.folder.name, "cli.txt", _chunks(b"cli"))
    out = await ward.cli("storage", "reindex")
    assert "Files added: 1" in out
    assert await StoredFile.exists(name="cli.txt")
