"""Visits (issue 50, item 7): POST /api/blobs/<c>/<f>/visit records the caller's visit to the
folder now and answers when the visit before it ended, so the web app can mark files added since
as new; requests within VISIT_WINDOW of the last are one visit (a reload keeps the marks)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from bff.audit.models import AuditLog
from bff.containers.models import Folder
from bff.files.models import FolderVisit
from bff.files.visits import VISIT_LONGEST, VISIT_WINDOW
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


async def last_seen(ward: Ward, who: object, ago: timedelta) -> datetime:
    """Make who's visit to ward's folder last seen ago (no sleeping through the window)."""
    at = datetime.now(UTC) - ago
    rows = FolderVisit.filter(user_id=who.user.id, folder_id=ward.folder.id)  # type: ignore[attr-defined]
    assert await rows.update(visited_at=at) == 1
    return at


async def test_a_visit_goes_on_within_the_window_and_keeps_its_since(ward: Ward) -> None:
    audited = await AuditLog.all().count()
    # A first visit, and a reload: nothing is new to a first visit.
    assert await visit(ward, ward.nurse) is None
    assert await visit(ward, ward.nurse) is None
    # Back after a longer pause: a new visit, since the last one was last seen.
    ended = await last_seen(ward, ward.nurse, VISIT_WINDOW + timedelta(seconds=1))
    assert await visit(ward, ward.nurse) == ended
    # Reloads, and a return just inside the window, go on with it: the same files stay new.
    assert await visit(ward, ward.nurse) == ended
    await last_seen(ward, ward.nurse, VISIT_WINDOW - timedelta(seconds=5))
    assert await visit(ward, ward.nurse) == ended
    # Just past the window (from its last request, not its first): the next visit.
    again = await last_seen(ward, ward.nurse, VISIT_WINDOW + timedelta(seconds=1))
    assert await visit(ward, ward.nurse) == again
    # Each person's own: the assistant's first visit to the same folder.
    assert await visit(ward, ward.assistant) is None
    # An admin's, in any folder; each folder its own.
    assert await visit(ward, ward.admin, ward.other) is None
    assert await visit(ward, ward.admin) is None
    assert await FolderVisit.filter(user_id=ward.nurse.user.id).count() == 1
    assert await AuditLog.all().count() == audited, "not patient data: not audited"


async def test_a_visit_ends_after_its_longest_however_often_the_person_comes_back(
    ward: Ward,
) -> None:
    assert await visit(ward, ward.nurse) is None
    rows = FolderVisit.filter(user_id=ward.nurse.user.id, folder_id=ward.folder.id)
    # Back every 25 minutes: the visit goes on while it is younger than its longest...
    began = datetime.now(UTC) - VISIT_LONGEST + timedelta(seconds=30)
    await rows.update(started_at=began)
    await last_seen(ward, ward.nurse, VISIT_WINDOW - timedelta(minutes=5))
    assert await visit(ward, ward.nurse) is None
    # ... and past it the next visit begins, since the last request: what was read is not new.
    await rows.update(started_at=datetime.now(UTC) - VISIT_LONGEST - timedelta(seconds=1))
    seen = await last_seen(ward, ward.nurse, VISIT_WINDOW - timedelta(minutes=5))
    assert await visit(ward, ward.nurse) == seen
    assert await visit(ward, ward.nurse) == seen  # and that one goes on


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
