"""The intake's API through the real app, a real database and a real clamd (issue 51): the
intake permission (granted and withdrawn by an admin, audited; everyone else refused and shown
nothing), an upload batch making items (the same bytes never twice, malware refused), filing
to a folder (listed there, audited in the patient's access report; a folder the filer cannot
see is 404; two filers at once: one wins, the other told who), deleting with a reason."""

from __future__ import annotations

import asyncio

import jwt

from bff.audit.models import AuditLog
from bff.auth.sessions import open_session
from bff.files.models import StoredFile
from bff.intake import repository
from bff.intake.models import IntakeItem, Status
from bff.scan.models import Quarantined
from bff.users.models import User
from tests.factories import make_staff
from tests.helpers import audit_entries, error_message
from tests.intake.desk import (  # noqa: F401 - fixtures
    Desk,
    clamd_fixture,
    desk_fixture,
    pdf,
    png,
)
from tools.testclamd import EICAR

FORBIDDEN = "You don't have permission to do this."


def _token_user(token: str) -> dict[str, object]:
    """The user a session token carries (its signature not checked: the test made it)."""
    claims: dict[str, dict[str, object]] = jwt.decode(token, options={"verify_signature": False})
    return claims["user"]


async def _calls(desk: Desk, who: object, item_id: int) -> list[object]:
    h = who.headers  # type: ignore[attr-defined]
    c = desk.client
    return [
        await c.get("/api/intake/items", headers=h),
        await c.get(f"/api/intake/items/{item_id}", headers=h),
        await c.get(f"/api/intake/items/{item_id}/content", headers=h),
        await desk.send_batch(who, [("scan.png", png())]),  # type: ignore[arg-type]
        await desk.file(who, item_id),  # type: ignore[arg-type]
        await desk.delete(who, item_id, {"reason": "duplicate"}),  # type: ignore[arg-type]
    ]


async def test_only_holders_of_the_intake_permission_reach_the_intake(desk: Desk) -> None:
    [result] = await desk.batch(desk.clerk, [("letter.png", png())])
    item_id = result["item"]["id"]
    for response in await _calls(desk, desk.nurse, item_id):
        assert await error_message(response, 403) == FORBIDDEN
    refusals = await audit_entries("access_denied")
    assert len(refusals) == 6 and {e.user_id for e in refusals} == {desk.nurse.user.id}
    assert await IntakeItem.all().count() == 1  # nothing taken, filed or deleted by her
    assert (await IntakeItem.get(id=item_id)).status == Status.NEW

    # The admin grants it through the user edit: audited, and it works at her next request.
    granted = await desk.grant(desk.nurse, True)
    assert granted.status_code == 200, await granted.get_data(as_text=True)
    assert (await granted.get_json())["user"]["intake"] is True
    [entry] = [
        e
        for e in await audit_entries("user_update")
        if f"user={desk.nurse.user.username} " in e.details
    ]
    assert entry.user_id == desk.admin.user.id and "intake=granted" in entry.details
    inbox = await desk.inbox(desk.nurse)
    assert [item["id"] for item in inbox["items"]] == [item_id]
    # Her next session's token says so (the web app shows her the Intake page by it).
    nurse = await User.get(id=desk.nurse.user.id)
    assert _token_user(await open_session(nurse, desk.settings, "127.0.0.1"))["intake"] is True
    assert inbox["items"][0]["fileName"] == "letter.png"

    # Withdrawn: refused again at once (her cached session is forgotten with users:changed).
    withdrawn = await desk.grant(desk.nurse, False)
    assert (await withdrawn.get_json())["user"]["intake"] is False
    response = await desk.client.get("/api/intake/items", headers=desk.nurse.headers)
    assert await error_message(response, 403) == FORBIDDEN
    assert any("intake=withdrawn" in e.details for e in await audit_entries("user_update"))
    # An admin needs no grant; a doctor does.
    assert (await desk.inbox(desk.admin))["total"] == 1
    doctor = await make_staff(desk.settings, "doctor")
    assert _token_user(doctor.token)["intake"] is False
    assert _token_user(desk.admin.token)["intake"] is True
    response = await desk.client.get("/api/intake/items", headers=doctor.headers)
    assert await error_message(response, 403) == FORBIDDEN


async def test_a_batch_makes_items_and_the_same_bytes_are_taken_once(desk: Desk) -> None:
    letter, referral = png(), pdf(3)
    first = await desk.batch(desk.clerk, [("letter.png", letter), ("referral.pdf", referral)])
    assert [r["duplicate"] for r in first] == [False, False]
    by_name = {r["fileName"]: r["item"] for r in first}
    assert by_name["letter.png"]["pages"] == 1
    assert by_name["referral.pdf"]["pages"] == 3
    assert by_name["referral.pdf"]["contentType"] == "application/pdf"
    assert {r["item"]["source"] for r in first} == {"upload"}
    assert {r["item"]["receivedBy"] for r in first} == {desk.clerk.user.name}
    inbox = await desk.inbox(desk.clerk)
    assert inbox["total"] == 2
    assert [i["fileName"] for i in inbox["items"]] == ["referral.pdf", "letter.png"]  # newest
    received = await audit_entries("intake_received")
    assert len(received) == 2 and {e.user_id for e in received} == {desk.clerk.user.id}

    # The same bytes again (under another name, in another batch): the same item, no new one.
    again = await desk.batch(desk.admin, [("copy.pdf", referral)])
    assert again[0]["duplicate"] is True
    assert again[0]["item"]["id"] == by_name["referral.pdf"]["id"]
    assert await IntakeItem.all().count() == 2
    assert len(await audit_entries("intake_received")) == 2

    # The content served to the viewer is the bytes as received.
    item_id = by_name["letter.png"]["id"]
    response = await desk.client.get(
        f"/api/intake/items/{item_id}/content", headers=desk.clerk.headers
    )
    assert response.status_code == 200
    assert await response.get_data() == letter
    assert response.headers["Cache-Control"] == "private, no-store"
    # Kept in the intake's own area of storage, nowhere a folder lists.
    row = await IntakeItem.get(id=item_id)
    assert desk.storage is not None
    kept = [info.name async for info in desk.storage.walk() if row.object_id in info.name]
    # (and its thumbnail beside them, once the routing has drawn it: bff/intake/thumbnails.py)
    assert f".bff-intake/{row.object_id}" in kept
    assert set(kept) <= {
        f".bff-intake/{row.object_id}",
        f".bff-intake/.bff-previews/{row.object_id}.webp",
    }


async def test_malware_in_a_batch_is_refused_and_kept_only_in_quarantine(desk: Desk) -> None:
    results = await desk.batch(desk.clerk, [("fax.pdf", EICAR), ("clean.png", png())])
    assert results[0]["item"] is None
    assert "virus scanner found Eicar-Test-Signature" in results[0]["refused"]
    assert results[1]["item"] is not None and results[1]["refused"] is None
    assert await IntakeItem.all().count() == 1
    [found] = await Quarantined.all()
    assert found.container == ".bff-intake" and found.name == "fax.pdf"
    assert found.object_key.startswith(".bff-intake/.bff-quarantine/")
    assert desk.storage is not None
    assert await desk.storage.list_staged() == []
    [rejected] = await audit_entries("file_rejected")
    assert rejected.user_id == desk.clerk.user.id and "Eicar" in rejected.details


async def test_filing_puts_the_file_in_the_folder_audited_for_the_patient(desk: Desk) -> None:
    data = pdf(2)
    [result] = await desk.batch(desk.clerk, [("discharge.pdf", data)])
    item_id = result["item"]["id"]
    await desk.grant(desk.nurse, True)  # she is assigned the folder
    response = await desk.file(desk.nurse, item_id, name="Discharge 2026-12.pdf")
    assert response.status_code == 200, await response.get_data(as_text=True)
    body = await response.get_json()
    assert body["item"]["status"] == "filed"
    assert body["item"]["filed"]["by"] == desk.nurse.user.name
    assert body["item"]["filed"]["folder"] == desk.folder.name

    listing = await desk.listing(desk.nurse)
    assert "Discharge 2026-12.pdf" in [blob["name"] for blob in listing["blobs"]]
    assert await desk.stored("Discharge 2026-12.pdf") == data
    [entry] = await audit_entries("intake_filed")
    assert (entry.container_name, entry.folder_name, entry.blob_name) == (
        desk.container.name,
        desk.folder.name,
        "Discharge 2026-12.pdf",
    )
    assert entry.user_id == desk.nurse.user.id
    assert f"intake item {item_id}" in entry.details and "upload" in entry.details
    # The patient's access report finds it.
    report = await desk.client.get(
        "/api/blobs/audit/report",
        headers=desk.admin.headers,
        query_string={"containerName": desk.container.name, "folderName": desk.folder.name},
    )
    assert report.status_code == 200, await report.get_data(as_text=True)
    text = await report.get_data(as_text=True)
    assert "intake_filed" in text
    # Filed once: the next attempt is told who did it, and nothing more is stored.
    again = await desk.file(desk.clerk, item_id, name="other.pdf")
    message = await error_message(again, 409)
    assert message.startswith(f"Already filed by {desk.nurse.user.name} at ")
    assert await StoredFile.filter(folder_id=desk.folder.id).count() == 1


async def test_two_people_filing_one_item_at_once_one_wins(desk: Desk) -> None:
    [result] = await desk.batch(desk.clerk, [("lab.png", png())])
    item_id = result["item"]["id"]
    first, second = await asyncio.gather(
        desk.file(desk.clerk, item_id, name="lab-a.png"),
        desk.file(desk.admin, item_id, name="lab-b.png", folder=desk.other.name),
    )
    statuses = sorted([first.status_code, second.status_code])
    assert statuses == [200, 409], (await first.get_data(), await second.get_data())
    winner, loser = (first, second) if first.status_code == 200 else (second, first)
    winner_name = (await winner.get_json())["item"]["filed"]["by"]
    message = await error_message(loser, 409)
    assert message.startswith(f"Already filed by {winner_name} at ")
    assert await StoredFile.all().count() == 1  # only the winner's file, in one folder
    assert len(await audit_entries("intake_filed")) == 1
    assert desk.storage is not None
    assert await desk.storage.list_staged() == []


async def test_a_folder_the_filer_cannot_see_is_not_found(desk: Desk) -> None:
    [result] = await desk.batch(desk.clerk, [("letter.png", png())])
    item_id = result["item"]["id"]
    await desk.grant(desk.nurse, True)
    for folder in (desk.other.name, "no-such-folder"):
        response = await desk.file(desk.nurse, item_id, folder=folder)
        assert await error_message(response, 404) == "Folder not found"
    assert (await IntakeItem.get(id=item_id)).status == Status.NEW
    assert await StoredFile.all().count() == 0
    refusal = await AuditLog.filter(operation="access_denied", folder_name=desk.other.name).first()
    assert refusal is not None and refusal.user_id == desk.nurse.user.id


async def test_deleting_needs_a_reason(desk: Desk) -> None:
    [result] = await desk.batch(desk.clerk, [("junk.png", png())])
    item_id = result["item"]["id"]
    for body in ({}, {"reason": ""}, {"reason": "   "}):
        response = await desk.delete(desk.clerk, item_id, body)
        assert response.status_code == 400, body
    assert (await IntakeItem.get(id=item_id)).status == Status.NEW
    response = await desk.delete(desk.clerk, item_id, {"reason": "Blank page, scanned twice"})
    assert response.status_code == 200, await response.get_data(as_text=True)
    item = (await response.get_json())["item"]
    assert item["status"] == "deleted"
    assert item["deleted"]["reason"] == "Blank page, scanned twice"
    [entry] = await audit_entries("intake_deleted")
    assert "Blank page, scanned twice" in entry.details and entry.user_id == desk.clerk.user.id
    assert (await desk.inbox(desk.clerk))["total"] == 0  # gone from the inbox
    assert (await desk.inbox(desk.clerk, status="deleted"))["total"] == 1
    refused = await desk.file(desk.clerk, item_id)
    assert (await error_message(refused, 409)).startswith(
        f"Already deleted by {desk.clerk.user.name} at "
    )


async def test_an_items_suggestion_is_shown_with_its_evidence(desk: Desk) -> None:
    [result] = await desk.batch(desk.clerk, [("referral.png", png())])
    item_id = result["item"]["id"]
    assert result["item"]["suggestion"] is None
    suggestion = {
        "container": desk.container.name,
        "folder": desk.folder.name,
        "evidence": [{"kind": "recordNumber", "start": 10, "end": 18}],
    }
    assert await repository.set_suggestion(None, item_id, suggestion)
    response = await desk.client.get(f"/api/intake/items/{item_id}", headers=desk.clerk.headers)
    assert (await response.get_json())["suggestion"] == suggestion
    assert (await desk.file(desk.clerk, item_id)).status_code == 200
    assert not await repository.set_suggestion(None, item_id, None)  # filed: kept as it was
