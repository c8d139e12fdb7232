"""A document the intake filed keeps where it came from (issue 51): the folder's listing shows
its source (the scanner, the mailbox with the mail's sender, an upload to the intake; a person's
filing or its cover sheet's: test_routing.py), an upload to the folder shows none; a new upload
over it has none, and its earlier version, a restore of it and the trash keep it; the
emergency view leaves it out. Migration 0040 leaves the rows before it as uploads."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bff.files.models import StoredFile, TrashedFile
from bff.intake.models import IntakeItem, Source
from bff.intake.service import INTAKE_ACTOR, Arrival, take_in
from tests.emergency.test_emergency_access import Scene, scene  # noqa: F401 - fixture
from tests.intake.desk import (  # noqa: F401 - fixtures
    Desk,
    clamd_fixture,
    desk_fixture,
    png,
)
from tests.patients.test_record_numbers import fresh_database, migrated, write
from tools.devserver import query_database

SENDER = "results@lab.example.org"


async def _arrived(desk: Desk, source: Source, name: str, sender: str = "") -> IntakeItem:
    """An item from the scan folder or the mailbox, as they hand one over (left unrouted)."""

    async def chunks() -> Any:
        yield png()

    async with desk.app.app_context():
        item, _ = await take_in(
            chunks(),
            Arrival(source, name, sender=sender, subject="Results"),
            desk.storage,
            INTAKE_ACTOR,
            values={"routing": "done"},  # not the router's: a person files it
        )
    return item


async def _filed(desk: Desk, item_id: int, name: str) -> None:
    response = await desk.file(desk.clerk, item_id, name=name)
    assert response.status_code == 200, await response.get_data(as_text=True)


async def _sources(desk: Desk) -> dict[str, Any]:
    """Each file's source as the folder's nurse sees it (she has no intake permission)."""
    listing = await desk.listing(desk.nurse)
    return {blob["name"]: blob["source"] for blob in listing["blobs"]}


async def test_a_filed_document_lists_its_source_and_an_upload_does_not(desk: Desk) -> None:
    mail = await _arrived(desk, Source.MAILBOX, "results.png", sender=SENDER)
    scan = await _arrived(desk, Source.SCANNER, "scan.png")
    [batch] = await desk.batch(desk.clerk, [("letter.png", png())])
    await _filed(desk, mail.id, "Lab results.png")
    await _filed(desk, scan.id, "Referral.png")
    await _filed(desk, batch["item"]["id"], "Letter.png")
    uploaded = await desk.upload(desk.nurse, "notes.png", png())
    assert uploaded.status_code == 201, await uploaded.get_data(as_text=True)
    assert (await uploaded.get_json())["blob"]["source"] is None

    assert await _sources(desk) == {
        "Lab results.png": {"kind": "mailbox", "sender": SENDER, "coverSheet": False},
        "Referral.png": {"kind": "scanner", "sender": None, "coverSheet": False},
        "Letter.png": {"kind": "upload", "sender": None, "coverSheet": False},
        "notes.png": None,
    }
    # The row keeps which item it was (the audit's `from intake item N`), not shown.
    row = await StoredFile.get(folder_id=desk.folder.id, name="Lab results.png")
    assert row.source["item"] == mail.id


async def test_the_source_goes_with_its_content_through_versions_and_the_trash(
    desk: Desk,
) -> None:
    mail = await _arrived(desk, Source.MAILBOX, "results.png", sender=SENDER)
    await _filed(desk, mail.id, "Lab results.png")
    from_mail = {"kind": "mailbox", "sender": SENDER, "coverSheet": False}

    # A new upload over it is the nurse's content: no source; the mail's is its earlier version.
    replaced = await desk.upload(desk.nurse, "Lab results.png", png(), query={"overwrite": "true"})
    assert replaced.status_code == 201, await replaced.get_data(as_text=True)
    assert (await _sources(desk))["Lab results.png"] is None
    response = await desk.client.get(
        desk.url("Lab results.png", "versions"), headers=desk.nurse.headers
    )
    versions = (await response.get_json())["versions"]
    assert [(v["current"], v["source"]) for v in versions] == [(True, None), (False, from_mail)]

    restored = await desk.client.post(
        desk.url("Lab results.png", "versions", versions[1]["versionId"], "restore"),
        headers=desk.nurse.headers,
    )
    assert restored.status_code == 200, await restored.get_data(as_text=True)
    assert (await _sources(desk))["Lab results.png"] == from_mail

    # Deleted to the trash and restored: still from the mail.
    deleted = await desk.client.delete(desk.url("Lab results.png"), headers=desk.admin.headers)
    assert deleted.status_code == 200, await deleted.get_data(as_text=True)
    assert (await TrashedFile.get(folder_id=desk.folder.id)).source["sender"] == SENDER
    back = await desk.client.post(
        desk.url("trash", "Lab results.png", "restore"), headers=desk.admin.headers
    )
    assert back.status_code == 200, await back.get_data(as_text=True)
    assert (await _sources(desk))["Lab results.png"] == from_mail


async def test_the_emergency_view_leaves_the_source_out(scene: Scene) -> None:  # noqa: F811
    kept = {"kind": "mailbox", "sender": SENDER, "coverSheet": False, "item": 1}
    await StoredFile.filter(folder_id=scene.folder.id, name="allergies.txt").update(source=kept)
    await scene.scan()
    status, body = await scene.session()
    assert status == 200
    assert SENDER not in str(body)
    assert [f["source"] for f in body["files"]] == [None, None]


async def test_migration_0040_leaves_earlier_files_as_uploads(
    database_url: str, tmp_path: Path
) -> None:
    async with fresh_database(database_url, tmp_path) as fresh:
        await migrated(fresh, "0039_intake_dedupe_new")
        at = "'2026-01-01 00:00:00+00:00'"
        await write(
            fresh,
            "INSERT INTO containers (id, name, sort_prefix, sort_number, created_at) "
            f"VALUES (1, 'ward-1', 'ward-', 1, {at})",
            "INSERT INTO folders (id, container_id, name, sort_prefix, sort_number, created_at, "
            f"patient_search) VALUES (1, 1, 'patient-1', 'patient-', 1, {at}, '')",
            "INSERT INTO files (id, folder_id, name, content_type, size, last_modified, "
            "extension, is_profile_image, converted_from_rtf, version_id) "
            f"VALUES (1, 1, 'a.pdf', 'application/pdf', 1, {at}, 'pdf', FALSE, FALSE, 'v2')",
            "INSERT INTO file_versions (folder_id, name, version_id, content_type, size, "
            "last_modified, uploaded_by_name, uploaded_by_role, replaced_at) VALUES (1, 'a.pdf', "
            f"'v1', 'application/pdf', 1, {at}, 'Ann', 'nurse', {at})",
            "INSERT INTO trashed_files (folder_id, name, trash_id, content_type, size, "
            "last_modified, is_profile_image, version_id, uploaded_by_name, uploaded_by_role, "
            "deleted_at, deleted_by_name, deleted_by_role) VALUES (1, 'b.pdf', 't1', "
            f"'application/pdf', 1, {at}, FALSE, 'v1', 'Ann', 'nurse', {at}, 'Bo', 'admin')",
        )
        await migrated(fresh, "0040_file_source")
        rows = await query_database(fresh, "SELECT name, version_id, source FROM files")
        assert [tuple(r) for r in rows] == [("a.pdf", "v2", None)]
        rows = await query_database(fresh, "SELECT version_id, source FROM file_versions")
        assert [tuple(r) for r in rows] == [("v1", None)]
        rows = await query_database(fresh, "SELECT trash_id, source FROM trashed_files")
        assert [tuple(r) for r in rows] == [("t1", None)]
        # Its columns added in place: the name still one file's per folder.
        with pytest.raises(Exception, match=r"(?i)unique"):
            await write(
                fresh,
                "INSERT INTO files (folder_id, name, content_type, size, last_modified, "
                "extension, is_profile_image, converted_from_rtf, version_id) "
                f"VALUES (1, 'a.pdf', 'application/pdf', 1, {at}, 'pdf', FALSE, FALSE, 'v3')",
            )
