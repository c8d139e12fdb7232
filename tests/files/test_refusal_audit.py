"""Refused access by signed-in staff is audited (`access_denied`, by the permission policy), and so
are reads that show patient data without opening a file: folder listings, token lists, and the
end of emergency access."""

from __future__ import annotations

from datetime import UTC, date, datetime

from bff.audit.models import AuditLog
from bff.tokens.models import SmartToken, TokenStatus
from bff.tokens.signing import new_token_id, sign
from tests.files.conftest import Ward
from tests.helpers import audit_entries, error_message


async def test_a_nurse_probing_an_unassigned_folder_is_404_and_on_record(ward: Ward) -> None:
    for path in ("", "notes.txt/url", "notes.txt/view", "profile-image"):
        url = ward.url(path, folder=ward.other) if path else ward.url(folder=ward.other)
        response = await ward.client.get(url, headers=ward.nurse.headers)
        assert await error_message(response, 404) == "Folder not found"
    refusals = await audit_entries("access_denied")
    assert [(e.user_id, e.container_name, e.folder_name, e.blob_name) for e in refusals] == [
        (ward.nurse.user.id, ward.container.name, ward.other.name, ""),
        (ward.nurse.user.id, ward.container.name, ward.other.name, "notes.txt"),
        (ward.nurse.user.id, ward.container.name, ward.other.name, "notes.txt"),
        (ward.nurse.user.id, ward.container.name, ward.other.name, ""),
    ]
    assert refusals[0].role == "nurse"
    assert refusals[0].details == "404 GET /api/blobs/<container>/<folder>"
    assert refusals[1].details == "404 GET /api/blobs/<container>/<folder>/<blob>/url"
    # An unassigned container's folder list too.
    outside = await ward.client.get(
        "/api/assignments/containers/some-other-ward/folders", headers=ward.nurse.headers
    )
    assert outside.status_code == 404
    last = await AuditLog.filter(operation="access_denied").order_by("-id").first()
    assert last is not None
    assert (last.container_name, last.folder_name) == ("some-other-ward", "")


async def test_an_assistants_refused_upload_is_403_and_on_record(ward: Ward) -> None:
    response = await ward.upload(ward.assistant, "notes.txt", b"not allowed")
    assert await error_message(response, 403) == "You don't have permission to do this."
    [refusal] = await audit_entries("access_denied")
    assert refusal.user_id == ward.assistant.user.id
    assert refusal.role == "assistant"
    assert (refusal.container_name, refusal.folder_name) == (ward.container.name, ward.folder.name)
    assert refusal.details == "403 POST /api/blobs/<container>/<folder>"
    assert await ward.stored("notes.txt") is None


async def test_names_from_refused_urls_fit_the_log(ward: Ward) -> None:
    """A probe with a very long or odd name is still refused with a 404, and recorded cut to
    the log's columns."""
    long_folder = "p" * 5000
    response = await ward.client.get(
        f"/api/blobs/{ward.container.name}/{long_folder}/a%00b/url", headers=ward.nurse.headers
    )
    assert await error_message(response, 404) == "Folder not found"
    [refusal] = await audit_entries("access_denied")
    assert refusal.folder_name == "p" * 100
    assert refusal.blob_name == "a\ufffdb"


async def test_staff_signed_out_are_not_audited(ward: Ward) -> None:
    response = await ward.client.get(ward.url(folder=ward.other))
    assert response.status_code == 401
    assert await audit_entries("access_denied") == []


async def test_folder_listings_are_audited(ward: Ward) -> None:
    url = f"/api/assignments/containers/{ward.container.name}/folders"
    response = await ward.client.get(url, headers=ward.nurse.headers, query_string={"q": "pat"})
    assert response.status_code == 200
    assert (await response.get_json())["folders"] == [ward.folder.name]
    [entry] = await audit_entries("folder_list")
    assert (entry.user_id, entry.container_name) == (ward.nurse.user.id, ward.container.name)
    assert entry.details == "search 'pat', page 1"


async def _token(ward: Ward) -> SmartToken:
    return await SmartToken.create(
        token_id=new_token_id(),
        secure_chip_id=f"chip-{ward.container.name}",
        status=TokenStatus.ASSIGNED,
        folder=ward.folder,
        patient_name="Grace Hopper",
        patient_date_of_birth=date(1906, 12, 9),
        assigned_at=datetime.now(UTC),
    )


async def test_token_list_reads_are_audited(ward: Ward) -> None:
    await _token(ward)
    admin = ward.admin.headers
    assigned = await ward.client.get("/patients/admin/assigned", headers=admin)
    assert assigned.status_code == 200
    assert (await assigned.get_json())["tokens"][0]["patientName"] == "Grace Hopper"
    assert (await ward.client.get("/patients/admin/unclaimed", headers=admin)).status_code == 200
    folders = await ward.client.get(
        f"/patients/admin/assigned-folders/{ward.container.name}", headers=admin
    )
    assert folders.status_code == 200
    entries = await audit_entries("token_list")
    assert [(e.user_id, e.container_name, e.details) for e in entries] == [
        (ward.admin.user.id, "", "assigned and revoked tokens: 1"),
        (ward.admin.user.id, "", "unclaimed tokens: 0"),
        (ward.admin.user.id, ward.container.name, "tokens of the container's folders"),
    ]
    # A nurse asking for the list is refused, and that is on record too.
    refused = await ward.client.get("/patients/admin/assigned", headers=ward.nurse.headers)
    assert refused.status_code == 403
    [refusal] = await audit_entries("access_denied")
    assert refusal.details == "403 GET /patients/admin/assigned"


async def test_ending_emergency_access_is_audited(ward: Ward) -> None:
    token = await _token(ward)
    responder = ward.app.test_client()
    scan = await responder.get(
        f"/patients/verify/{token.token_id}?s={sign(ward.settings, token.token_id)}",
        scope_base={"client": ("203.0.113.9", 40000)},
    )
    assert scan.status_code == 303
    ended = await responder.delete(
        "/api/emergency/session", scope_base={"client": ("203.0.113.9", 40000)}
    )
    assert ended.status_code == 200
    [entry] = await audit_entries("emergency_end")
    assert entry.role == "emergency"
    assert entry.client_address == "203.0.113.9"
    assert (entry.container_name, entry.folder_name) == (ward.container.name, ward.folder.name)
    assert entry.details == f"token={token.token_id}; ended by the responder"
    assert (await responder.get("/api/emergency/session")).status_code == 404
