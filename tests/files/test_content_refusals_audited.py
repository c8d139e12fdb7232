"""Content the checks refuse is on record (issue 49, security review): `file_rejected` with who,
the container, folder and name, and the message the uploader was given, as an infected file's
is; the answer is the one the uploader always had; and one user's repeated refusals cost the log
one entry a minute with their count, never one a request."""

from __future__ import annotations

import pytest

from bff.audit import service as audit_service
from bff.files.models import StoredFile
from tests import samples
from tests.files.conftest import Ward
from tests.helpers import audit_entries, error_message


async def test_a_refused_content_is_audited_with_who_where_and_why(ward: Ward) -> None:
    """Before: the nurse was told "The file is empty" and the audit log had nothing."""
    message = await error_message(await ward.upload(ward.nurse, "referral.pdf", b""), 422)
    assert message == "The file is empty"
    assert await ward.stored("referral.pdf") is None

    [entry] = await audit_entries("file_rejected")
    assert (entry.user_id, entry.role) == (ward.nurse.user.id, "nurse")
    assert (entry.container_name, entry.folder_name, entry.blob_name) == (
        ward.container.name,
        ward.folder.name,
        "referral.pdf",
    )
    assert entry.details == "content checks refused it: The file is empty"


async def test_repeated_refusals_are_one_entry_with_a_count(
    ward: Ward, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Forty refused uploads by one nurse within a minute (the minute is frozen here): each
    answered as ever, one entry at once and one with the count of the other 39; another
    member of staff's refusal is an entry of its own; content let in is not a refusal."""
    monkeypatch.setattr(audit_service, "_clock", lambda: 0.0)
    refusals = [
        ("setup.pdf", samples.windows_exe()),
        ("scan.pdf", samples.png()),
        ("blank.txt", b""),
        ("archive.zip", samples.zip_of({"a.txt": b"a"})),
    ]
    first = ""
    for _ in range(10):
        for name, data in refusals:
            message = await error_message(await ward.upload(ward.nurse, name, data), 422)
            first = first or message
    assert "program" in first
    admins = await error_message(await ward.upload(ward.admin, "empty.txt", b""), 422)
    assert admins == "The file is empty"
    accepted = await ward.upload(ward.nurse, "notes.txt", b"fine\n")
    assert accepted.status_code == 201
    assert await StoredFile.filter(folder_id=ward.folder.id).count() == 1

    entries = await audit_entries("file_rejected")
    assert [(e.user_id, e.blob_name, e.details) for e in entries] == [
        (ward.nurse.user.id, "setup.pdf", f"content checks refused it: {first}"),
        (ward.admin.user.id, "empty.txt", "content checks refused it: The file is empty"),
    ]
    await audit_service.flush()
    counted = (await audit_entries("file_rejected"))[2:]
    assert [(e.user_id, e.blob_name, e.details) for e in counted] == [
        (
            ward.nurse.user.id,
            "",
            "more content refused by the content checks: repeated=39 within 60s",
        )
    ]
