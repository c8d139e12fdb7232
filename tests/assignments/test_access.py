"""Who may call the assignment endpoints: listings need a session, changes need an admin."""

from __future__ import annotations

from quart.testing import QuartClient as Client

from bff.assignments.models import ContainerAssignment, FolderAssignment
from bff.audit.models import AuditLog
from bff.users.models import Role, User
from config.settings import Settings
from tests.factories import assign, make_container, make_folder, make_staff, make_user
from tests.helpers import error_message


async def test_listing_needs_a_session(client: Client) -> None:
    container = await make_container()
    await error_message(await client.get("/api/assignments/containers"), 401)
    await error_message(
        await client.get(f"/api/assignments/containers/{container.name}/folders"), 401
    )
    await error_message(await client.get("/api/assignments/my-assignments"), 401)


async def test_assignment_changes_are_admin_only(client: Client, settings: Settings) -> None:
    target = await make_user(Role.NURSE)
    ward = await make_container()
    folder = await make_folder(ward, "patient-1")
    ca = await assign(target, ward, folder)
    fa = await FolderAssignment.get(user=target)
    for role in (Role.DOCTOR, Role.NURSE, Role.ASSISTANT):
        staff = await make_staff(settings, role)
        await assign(staff.user, ward, folder)  # even with access to the container
        h = staff.headers
        for response in (
            await client.post(
                f"/api/assignments/containers/{ward.name}/users/{staff.user.id}", headers=h
            ),
            await client.post(
                f"/api/assignments/containers/{ward.name}/folders",
                headers=h,
                json={"userId": staff.user.id, "folderNames": ["patient-1"]},
            ),
            await client.get(f"/api/assignments/users/{target.id}", headers=h),
            await client.delete(f"/api/assignments/{ca.id}?type=container", headers=h),
            await client.delete(f"/api/assignments/{fa.id}?type=folder", headers=h),
        ):
            assert await error_message(response, 403) == "You don't have permission to do this."
    assert await ContainerAssignment.filter(id=ca.id).exists()
    assert await FolderAssignment.filter(id=fa.id).exists()
    # Nothing changed: the audit log holds only the 15 refusals.
    operations = await AuditLog.all().values_list("operation", flat=True)
    assert operations == ["access_denied"] * 15
    assert await User.filter(id=target.id).exists()
