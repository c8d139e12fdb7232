"""Visits (issue 50, item 7): POST /api/blobs/<c>/<f>/visit records the caller's visit to the
folder now and answers the one before, so the web app can mark files added since as new."""

from __future__ import annotations

from datetime import UTC, datetime

from bff.audit.models import AuditLog
from bff.containers.models import Folder
from bff.files.models import FolderVisit
from bff.users.models import Role
from tests.factories import make_folder, make_staff
from tests.files.conftest import Ward


async def visit(ward: Ward, who: object, folder: Folder | None = None) -> datetime | None:
    response = await ward.client.post(ward.url("visit", folder=folder), headers=who.headers)  # type: ignore[attr-defined]
    assert response.status_code == 200, await response.get_data()
    body = await response.get_json()
    assert set(body) == {"previousVisitAt"}
    value = body["previousVisitAt"]
    return None if value is None else datetime.fromisoformat(value)


async def test_a_visit_answers_the_one_before(ward: Ward) -> None:
    audited = await AuditLog.all().count()
    before_first = datetime.now(UTC)
    assert await visit(ward, ward.nurse) is None
    after_first = datetime.now(UTC)
    first = await visit(ward, ward.nurse)
    assert first is not None and before_first <= first <= after_first
    second = await visit(ward, ward.nurse)
    assert second is not None and second > first
    # Each person's own: the assistant's first visit to the same folder.
    assert await visit(ward, ward.assistant) is None
    # An admin's, in any folder; each folder its own.
    assert await visit(ward, ward.admin, ward.other) is None
    assert await visit(ward, ward.admin) is None
    assert await visit(ward, ward.admin, ward.other) is not None
    assert await FolderVisit.filter(user_id=ward.nurse.user.id).count() == 1
    assert await AuditLog.all().count() == audited, "not patient data: not audited"


async def test_a_visit_to_a_folder_not_assigned_is_a_404(ward: Ward) -> None:
    response = await ward.client.post(
        ward.url("visit", folder=ward.other), headers=ward.nurse.headers
    )
    assert response.status_code == 404
    assert await FolderVisit.filter(user_id=ward.nurse.user.id).count() == 0
    missing = await ward.client.post(
        f"/api/blobs/{ward.container.name}/no-such-folder/visit", headers=ward.nurse.headers
    )
    assert missing.status_code == 404
    assert (await ward.client.post(ward.url("visit"))).status_code == 401


async def test_visits_go_with_their_user_or_folder(ward: Ward) -> None:
    doctor = await make_staff(ward.settings, Role.DOCTOR)
    temporary = await make_folder(ward.container, "patient-3")
    for who in (ward.nurse, ward.admin, doctor):
        await FolderVisit.create(
            user_id=who.user.id, folder_id=ward.folder.id, visited_at=datetime.now(UTC)
        )
    await FolderVisit.create(
        user_id=ward.admin.user.id, folder_id=temporary.id, visited_at=datetime.now(UTC)
    )
    await doctor.user.delete()
    assert await FolderVisit.filter(user_id=doctor.user.id).count() == 0
    await temporary.delete()
    assert await FolderVisit.filter(folder_id=temporary.id).count() == 0
    assert await FolderVisit.filter(folder_id=ward.folder.id).count() == 2
