"""Content the checks refuse is on record (issue 49, security review): `file_rejected` with who,
the container, folder and name, and the message the uploader was given, as an infected file's
is; the answer is the one the uploader always had; each refusal of another file is written in
full, and only the same refusal repeated costs the log one entry a minute with its count."""

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


async def test_each_refusal_is_on_record_and_only_the_same_one_repeated_is_counted(
    ward: Ward, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Four different refused uploads by one nurse, each ten times within a minute (the minute
    is frozen here): each answered as ever; each of the four on record in full at once (its
    name, its message: before, the first one hid the other three, a program among them, as
    "repeated=39"), and the other 36 counted per refusal; another member of staff's refusal
    is an entry of its own; content let in is not a refusal."""
    monkeypatch.setattr(audit_service, "_clock", lambda: 0.0)
    refusals = [
        ("setup.pdf", samples.windows_exe()),
        ("scan.pdf", samples.png()),
        ("blank.txt", b""),
        ("archive.zip", samples.zip_of({"a.txt": b"a"})),
    ]
    messages: dict[str, str] = {}
    for _ in range(10):
        for name, data in refusals:
            messages[name] = await error_message(await ward.upload(ward.nurse, name, data), 422)
    assert "program" in messages["setup.pdf"]
    admins = await error_message(await ward.upload(ward.admin, "empty.txt", b""), 422)
    assert admins == "The file is empty"
    accepted = await ward.upload(ward.nurse, "notes.txt", b"fine\n")
    assert accepted.status_code == 201
    assert await StoredFile.filter(folder_id=ward.folder.id).count() == 1

    entries = await audit_entries("file_rejected")
    assert [(e.user_id, e.blob_name, e.details) for e in entries] == [
        *(
            (ward.nurse.user.id, name, f"content checks refused it: {messages[name]}")
            for name, _ in refusals
        ),
        (ward.admin.user.id, "empty.txt", "content checks refused it: The file is empty"),
    ]
    await audit_service.flush()
    counted = (await audit_entries("file_rejected"))[5:]
    where = f"{ward.container.name}/{ward.folder.name}"
    assert sorted((e.user_id, e.details) for e in counted) == sorted(
        (
            ward.nurse.user.id,
            f"the same upload refused again ({where}/{name}): {messages[name]} "
            "repeated=9 within 60s",
        )
        for name, _ in refusals
    )
