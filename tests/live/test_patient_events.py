"""patient:changed with real Socket.IO clients: a doctor's edit reaches admins and the folder's
care team (a nurse's open folder page), and nobody else (proved with a marker); it says who
changed the patient and when (issue 50), never the values, as the patient's page then says."""

from __future__ import annotations

from datetime import UTC, datetime

from bff.users.models import Role
from tests.factories import assign, make_container, make_folder, make_staff
from tests.live.conftest import LiveServer, marker


async def test_patient_changed_reaches_the_care_team_only(live: LiveServer) -> None:
    container = await make_container()
    folder = await make_folder(container, "patient-1")
    admin = await make_staff(live.settings, Role.ADMIN)
    doctor = await make_staff(live.settings, Role.DOCTOR)
    nurse = await make_staff(live.settings, Role.NURSE)
    sibling = await make_staff(live.settings, Role.NURSE)
    await assign(doctor.user, container, folder)
    await assign(nurse.user, container, folder)
    await assign(sibling.user, container, await make_folder(container, "patient-2"))
    admin_ears = await live.listener(admin.token, "admin")
    nurse_ears = await live.listener(nurse.token, "nurse")
    sibling_ears = await live.listener(sibling.token, "sibling")

    before = datetime.now(UTC).replace(microsecond=0)
    response = await live.app.test_client().put(
        f"/api/patients/{container.name}/patient-1",
        json={"name": "Ann Smith", "dateOfBirth": "1950-03-14", "recordNumber": "MRN-1"},
        headers=doctor.headers,
    )
    assert response.status_code == 200, await response.get_data()
    after = datetime.now(UTC)
    heard = await nurse_ears.wait_for("patient:changed")
    at = heard.pop("at")
    payload = {"container": container.name, "folder": "patient-1", "by": doctor.user.name}
    assert heard == payload  # names, never the values
    assert at.endswith("Z") and before <= datetime.fromisoformat(at) <= after
    assert await admin_ears.wait_for("patient:changed") == {**payload, "at": at}
    # The patient's page reads back the same author and time (a reconnect that missed the event
    # tells the change from them).
    read = await live.app.test_client().get(
        f"/api/patients/{container.name}/patient-1", headers=nurse.headers
    )
    body = await read.get_json()
    assert body["changedBy"] == doctor.user.name
    changed_at = datetime.fromisoformat(body["changedAt"])
    assert changed_at.replace(microsecond=0) == datetime.fromisoformat(at)
    await marker(live, admin, sibling_ears, sibling.user)
    assert "patient:changed" not in sibling_ears.names()
    assert (await admin_ears.wait_for("audit:created"))["operation"] == "patient_update"
