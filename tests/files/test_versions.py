"""File versions and the trash: overwrite keeps the old content, restore, trash, retention,
reindex (on local disk and S3 through `any_ward`, and on both databases)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any
from unittest.mock import AsyncMock

import pytest

from bff.audit.models import AuditLog
from bff.files.models import FileVersion, TrashedFile
from bff.files.names import PROFILE_IMAGE_NAME, RTF_ORIGINAL_PREFIX
from bff.files.reindex import ReindexReport, reindex
from bff.files.retention import purge_expired
from bff.files.staging import sweep
from bff.leases import release_lease, take_lease
from storage.base import TRASH_DIR, VERSIONS_DIR, ObjectKey, StorageUnavailable
from tests.factories import make_staff
from tests.files.conftest import Ward

RTF_OLD = rb"{\rtf1\ansi First letter.}"
RTF_NEW = rb"{\rtf1\ansi Second letter.}"


async def _json(response: Any, status: int = 200) -> Any:
    assert response.status_code == status, await response.get_data()
    return await response.get_json()


async def _versions(ward: Ward, name: str, who: Any = None) -> list[dict[str, Any]]:
    who = who or ward.nurse
    body = await _json(await ward.client.get(ward.url(name, "versions"), headers=who.headers))
    versions: list[dict[str, Any]] = body["versions"]
    return versions


async def _open_version(ward: Ward, name: str, version_id: str, who: Any = None) -> bytes:
    who = who or ward.nurse
    link = await _json(
        await ward.client.get(ward.url(name, "versions", version_id, "url"), headers=who.headers)
    )
    response = await ward.client.get(link["url"])  # the signed link alone opens it
    assert response.status_code == 200, await response.get_data()
    assert response.headers["Content-Security-Policy"].endswith("sandbox")
    data: bytes = await response.get_data()
    return data


async def _overwrite(ward: Ward, who: Any, name: str, data: bytes) -> None:
    response = await ward.upload(who, name, data, query={"overwrite": "true"})
    assert response.status_code == 201, await response.get_data()


async def _hidden_objects(ward: Ward) -> list[tuple[str, ...]]:
    where = ObjectKey.folder(ward.container.name, ward.folder.name)
    found = []
    for top in (VERSIONS_DIR, TRASH_DIR):
        walked = ward.storage.walk(where.child(top))
        found += sorted([ObjectKey.parse(info.name).inner async for info in walked])
    return found


async def test_a_nurses_overwrite_keeps_the_old_content_and_restore_swaps(any_ward: Ward) -> None:
    ward = any_ward
    assert (await ward.upload(ward.nurse, "notes.txt", b"first")).status_code == 201
    await _overwrite(ward, ward.nurse, "notes.txt", b"second, longer")
    [blob] = (await ward.listing(ward.assistant))["blobs"]
    assert blob["versionCount"] == 2 and blob["contentLength"] == len(b"second, longer")
    assert await ward.stored("notes.txt") == b"second, longer"
    current, old = await _versions(ward, "notes.txt", ward.assistant)
    assert current["current"] is True and old["current"] is False
    assert current["uploadedBy"] == {"name": ward.nurse.user.name, "role": "nurse"}
    assert (old["contentLength"], old["contentType"]) == (5, "text/plain")
    # Any role with the folder opens the old version through a signed link, with ranges.
    assert await _open_version(ward, "notes.txt", old["versionId"], ward.assistant) == b"first"
    link = await _json(
        await ward.client.get(
            ward.url("notes.txt", "versions", old["versionId"], "url"), headers=ward.nurse.headers
        )
    )
    part = await ward.client.get(link["url"], headers={"Range": "bytes=1-3"})
    assert part.status_code == 206 and await part.get_data() == b"irs"
    # The link is bound to its version: another version id with it is refused.
    forged = link["url"].replace(old["versionId"], current["versionId"])
    assert (await ward.client.get(forged)).status_code == 403
    assert await AuditLog.filter(operation="version_view", blob_name="notes.txt").count() == 2
    assert await AuditLog.filter(operation="version_create", blob_name="notes.txt").count() == 1
    # An assistant reads versions but cannot restore one.
    restore_url = ward.url("notes.txt", "versions", old["versionId"], "restore")
    refused = await ward.client.post(restore_url, headers=ward.assistant.headers)
    assert refused.status_code == 403
    restored = await _json(await ward.client.post(restore_url, headers=ward.nurse.headers))
    assert restored["message"] == "Version restored successfully"
    assert await ward.stored("notes.txt") == b"first"
    after = await _versions(ward, "notes.txt")
    assert [v["versionId"] for v in after] == [old["versionId"], current["versionId"]]
    assert await _open_version(ward, "notes.txt", current["versionId"]) == b"second, longer"
    [blob] = (await ward.listing(ward.nurse))["blobs"]
    assert blob["versionCount"] == 2 and blob["contentLength"] == 5
    assert await AuditLog.filter(operation="version_restore").count() == 1
    # The current one cannot be restored; an unknown id is a 404.
    again = await ward.client.post(restore_url, headers=ward.nurse.headers)
    assert again.status_code == 409
    assert (await again.get_json())["message"] == "This version is already the current one."
    unknown = await ward.client.get(
        ward.url("notes.txt", "versions", "nope", "url"), headers=ward.nurse.headers
    )
    assert unknown.status_code == 404
    assert (await unknown.get_json())["message"] == "Version not found"
    # Nothing reserved shows in the listing.
    assert [b["name"] for b in (await ward.listing(ward.nurse))["blobs"]] == ["notes.txt"]
    assert {p[0] for p in await _hidden_objects(ward)} == {VERSIONS_DIR}


async def test_unassigned_staff_see_no_versions_or_trash(ward: Ward) -> None:
    assert (await ward.upload(ward.nurse, "a.txt", b"a")).status_code == 201
    await _overwrite(ward, ward.nurse, "a.txt", b"b")
    stranger = await make_staff(ward.settings, "doctor")
    versions = await ward.client.get(ward.url("a.txt", "versions"), headers=stranger.headers)
    assert versions.status_code == 404
    old = (await _versions(ward, "a.txt"))[1]["versionId"]
    restore = await ward.client.post(
        ward.url("a.txt", "versions", old, "restore"), headers=stranger.headers
    )
    assert restore.status_code == 404
    # Only admins see the trash.
    assert (await ward.client.get(ward.url("trash"), headers=ward.nurse.headers)).status_code == 403


async def test_rtf_text_and_original_are_versioned_together(ward: Ward) -> None:
    assert (await ward.upload(ward.nurse, "letter.rtf", RTF_OLD)).status_code == 201
    await _overwrite(ward, ward.nurse, "letter.rtf", RTF_NEW)
    assert await ward.stored(RTF_ORIGINAL_PREFIX + "letter.rtf") == RTF_NEW
    _current, old = await _versions(ward, "letter.txt")
    assert b"First letter." in await _open_version(ward, "letter.txt", old["versionId"])
    url = ward.url("letter.txt", "versions", old["versionId"], "restore")
    await _json(await ward.client.post(url, headers=ward.nurse.headers))
    assert b"First letter." in (await ward.stored("letter.txt") or b"")
    assert await ward.stored(RTF_ORIGINAL_PREFIX + "letter.rtf") == RTF_OLD
    [blob] = (await ward.listing(ward.nurse))["blobs"]
    assert blob["originalRtfFileName"] == "letter.rtf" and blob["versionCount"] == 2


async def test_a_replaced_profile_image_is_kept_as_a_version(ward: Ward) -> None:
    from tests.files.test_conversions import _image

    for fmt in ("JPEG", "PNG"):
        response = await ward.upload(ward.nurse, "p.img", _image(fmt), isProfileImage="true")
        assert response.status_code == 201, await response.get_data()
    assert len(await _versions(ward, PROFILE_IMAGE_NAME)) == 2


async def test_admin_delete_goes_to_the_trash_and_comes_back(any_ward: Ward) -> None:
    ward = any_ward
    assert (await ward.upload(ward.nurse, "scan.txt", b"v1")).status_code == 201
    await _overwrite(ward, ward.nurse, "scan.txt", b"v2")
    deleted = await ward.client.delete(ward.url("scan.txt"), headers=ward.admin.headers)
    assert (await _json(deleted))["message"] == "File deleted successfully"
    assert (await ward.listing(ward.nurse))["blobs"] == []
    assert await ward.stored("scan.txt") is None
    [entry] = (await _json(await ward.client.get(ward.url("trash"), headers=ward.admin.headers)))[
        "blobs"
    ]
    assert entry["name"] == "scan.txt" and entry["versionCount"] == 2
    assert entry["deletedBy"] == {"name": ward.admin.user.name, "role": "admin"}
    deleted_at = datetime.fromisoformat(entry["deletedAt"])
    assert datetime.fromisoformat(entry["purgeAfter"]) - deleted_at == timedelta(days=30)
    assert all(p[0] == TRASH_DIR for p in await _hidden_objects(ward))
    # A new file of the same name blocks the restore (409 with a message).
    assert (await ward.upload(ward.nurse, "scan.txt", b"new")).status_code == 201
    clash = await ward.client.post(
        ward.url("trash", "scan.txt", "restore"), headers=ward.admin.headers
    )
    assert clash.status_code == 409
    assert "exists in this folder now" in (await clash.get_json())["message"]
    await ward.client.delete(ward.url("scan.txt"), headers=ward.admin.headers)
    trash = await _json(await ward.client.get(ward.url("trash"), headers=ward.admin.headers))
    assert [e["versionCount"] for e in trash["blobs"]] == [1, 2]  # newest first
    # Restore brings back the most recently deleted one; then the older one has no room.
    nurse = await ward.client.post(
        ward.url("trash", "scan.txt", "restore"), headers=ward.nurse.headers
    )
    assert nurse.status_code == 403
    await _json(
        await ward.client.post(ward.url("trash", "scan.txt", "restore"), headers=ward.admin.headers)
    )
    assert await ward.stored("scan.txt") == b"new"
    await ward.client.delete(ward.url("scan.txt"), headers=ward.admin.headers)
    # Purging needs the confirmation; it takes the newest entry for good.
    purge_url = ward.url("trash", "scan.txt")
    wrong = await ward.client.delete(
        purge_url, headers=ward.admin.headers, json={"confirmation": "x"}
    )
    assert wrong.status_code == 400
    await _json(
        await ward.client.delete(
            purge_url, headers=ward.admin.headers, json={"confirmation": "DELETE"}
        )
    )
    await _json(
        await ward.client.post(ward.url("trash", "scan.txt", "restore"), headers=ward.admin.headers)
    )
    assert await ward.stored("scan.txt") == b"v2"
    [old] = [v for v in await _versions(ward, "scan.txt") if not v["current"]]
    assert await _open_version(ward, "scan.txt", old["versionId"]) == b"v1"
    assert await TrashedFile.all().count() == 0
    assert {p[0] for p in await _hidden_objects(ward)} == {VERSIONS_DIR}
    operations = set(await AuditLog.all().values_list("operation", flat=True))
    assert {"trash_list", "trash_restore", "trash_purge", "file_delete"} <= operations


async def test_retention_purges_the_trash_and_old_versions_by_age_and_count(
    any_ward: Ward,
) -> None:
    ward = any_ward
    for data in (b"1", b"2", b"3", b"4"):
        await _overwrite(ward, ward.nurse, "a.txt", data)
    assert (await ward.upload(ward.nurse, "gone.txt", b"bye")).status_code == 201
    await ward.client.delete(ward.url("gone.txt"), headers=ward.admin.headers)
    settings = ward.settings.model_copy(update={"max_versions": 2})
    report = await purge_expired(ward.storage, settings)
    assert report.trash == [] and len(report.versions) == 1  # 3 earlier versions, 2 kept
    assert [v.size for v in await FileVersion.filter(name="a.txt", trash_id=None)] == [1, 1]
    later = datetime.now(UTC) + timedelta(days=31)
    settings = ward.settings.model_copy(update={"version_days": 30})
    report = await purge_expired(ward.storage, settings, now=later)
    assert len(report.trash) == 1 and len(report.versions) == 2
    assert "Trash entries purged: 1" in report.lines()
    assert await _hidden_objects(ward) == []
    assert await ward.stored("a.txt") == b"4"
    assert await AuditLog.filter(operation="version_purge").count() == 3
    assert await AuditLog.filter(operation="trash_purge", name="system").count() == 1


async def test_reindex_rebuilds_versions_and_trash_from_storage(any_ward: Ward) -> None:
    ward = any_ward
    await _overwrite(ward, ward.nurse, "a.txt", b"one")
    await _overwrite(ward, ward.nurse, "a.txt", b"two")
    await _overwrite(ward, ward.nurse, "b.txt", b"b1")
    await _overwrite(ward, ward.nurse, "b.txt", b"b2")
    await ward.client.delete(ward.url("b.txt"), headers=ward.admin.headers)
    await FileVersion.all().delete()
    await TrashedFile.all().delete()
    report = await reindex(ward.storage)
    assert (report.versions_added, report.trash_added) == (2, 1)
    [old] = [v for v in await _versions(ward, "a.txt") if not v["current"]]
    assert await _open_version(ward, "a.txt", old["versionId"]) == b"one"
    [entry] = (await _json(await ward.client.get(ward.url("trash"), headers=ward.admin.headers)))[
        "blobs"
    ]
    assert (entry["name"], entry["versionCount"]) == ("b.txt", 2)
    await _json(
        await ward.client.post(ward.url("trash", "b.txt", "restore"), headers=ward.admin.headers)
    )
    assert await ward.stored("b.txt") == b"b2"
    again = await reindex(ward.storage)
    assert (again.versions_added, again.versions_removed, again.trash_added) == (0, 0, 0)


async def test_the_purge_command_prints_what_it_purged(ward: Ward) -> None:
    assert (await ward.upload(ward.nurse, "x.txt", b"x")).status_code == 201
    await ward.client.delete(ward.url("x.txt"), headers=ward.admin.headers)
    await TrashedFile.all().update(deleted_at=datetime.now(UTC) - timedelta(days=40))
    out = await ward.cli("storage", "purge")
    assert f"Purged from the trash: {ward.container.name}/{ward.folder.name}/x.txt" in out
    assert "Trash entries purged: 1" in out
    assert await TrashedFile.all().count() == 0


class _Died(Exception):
    """Stands for the process ending between moving the new bytes and committing."""


async def test_an_overwrite_that_dies_before_its_commit_loses_no_content(
    any_ward: Ward, monkeypatch: Any
) -> None:
    from bff.files import staging

    ward = any_ward
    assert (await ward.upload(ward.nurse, "chart.txt", b"old chart")).status_code == 201

    def die_after_publish(point: str) -> None:
        if point == "after_publish":
            raise _Died

    monkeypatch.setattr(staging, "crash_point", die_after_publish)
    try:
        response = await ward.upload(
            ward.nurse, "chart.txt", b"new chart!", query={"overwrite": "true"}
        )
        assert response.status_code == 500
    except _Died:
        pass  # the test client passes the app's exception on
    monkeypatch.undo()
    # The new bytes were moved over the name, the index never heard of them: the old content
    # was copied to a version first, and reindex indexes that version.
    assert await ward.stored("chart.txt") == b"new chart!"
    report = await reindex(ward.storage)
    assert report.versions_added == 1
    [old] = [v for v in await _versions(ward, "chart.txt") if not v["current"]]
    assert await _open_version(ward, "chart.txt", old["versionId"]) == b"old chart"


async def test_one_process_purges_at_a_time(ward: Ward) -> None:
    from bff.files.retention import RETENTION_LEASE

    now = datetime.now(UTC)
    assert await take_lease(RETENTION_LEASE, "other:1", now, now + timedelta(minutes=1))
    report = await purge_expired(ward.storage, ward.settings)
    assert report.ran is False
    assert report.lines() == ["Another process is purging now; nothing done."]
    await release_lease(RETENTION_LEASE, "other:1")
    assert (await purge_expired(ward.storage, ward.settings)).ran is True


async def test_what_a_change_leaves_to_remove_is_never_indexed_again(
    any_ward: Ward, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Between a delete's (or a restore's) commit and the removal of the old place, storage
    holds objects no row accounts for: a reindex then must not list the deleted file again nor
    record the restored trash entry anew; the sweep removes them (issue 31, point 1: the
    symmetric case). Storage refusing the removals holds that moment open, as a process that
    died after its commit would."""
    ward = any_ward
    await _overwrite(ward, ward.nurse, "a.txt", b"one")
    await _overwrite(ward, ward.nurse, "a.txt", b"two")
    refuse = AsyncMock(side_effect=StorageUnavailable("refused"))
    with monkeypatch.context() as refusing:
        refusing.setattr(ward.storage, "delete_object", refuse)
        await ward.client.delete(ward.url("a.txt"), headers=ward.admin.headers)
    assert await ward.stored("a.txt") == b"two"  # the old place, left
    report = await reindex(ward.storage)
    assert (report.files_added, report.versions_added, report.trash_added) == (0, 0, 0)
    assert (await ward.listing(ward.admin))["blobs"] == []
    with monkeypatch.context() as refusing:
        refusing.setattr(ward.storage, "delete_object", refuse)
        restore = ward.url("trash", "a.txt", "restore")
        await ward.client.post(restore, headers=ward.admin.headers)
    assert [name for name in await _hidden_objects(ward) if name[0] == TRASH_DIR]
    report = await reindex(ward.storage)
    assert (report.files_added, report.versions_added, report.trash_added) == (0, 0, 0)
    assert (report.files_removed, report.versions_removed, report.trash_removed) == (0, 0, 0)
    trash = await _json(await ward.client.get(ward.url("trash"), headers=ward.admin.headers))
    assert trash["blobs"] == []

    swept = await sweep(ward.storage, grace_seconds=0)
    assert swept.leftovers > 0
    assert not [name for name in await _hidden_objects(ward) if name[0] == TRASH_DIR]
    assert [b["name"] for b in (await ward.listing(ward.admin))["blobs"]] == ["a.txt"]
    assert len(await _versions(ward, "a.txt")) == 2
    again = await reindex(ward.storage)
    assert again.lines() == ReindexReport().lines()
