"""Deleting users: what goes with them, what stays, and the admins who cannot be deleted."""

from __future__ import annotations

from quart.testing import QuartClient as Client

from bff.assignments.models import ContainerAssignment, FolderAssignment
from bff.auth.models import Session
from bff.users.models import Role, User
from config.settings import Settings
from tests.factories import assign, make_container, make_folder, make_staff, make_user
from tests.helpers import audit_entries, error_message
from tests.users.helpers import make_admin


async def test_delete_user_removes_sessions_and_assignments(
    client: Client, settings: Settings
) -> None:
    admin = await make_admin(settings)
    nurse = await make_staff(settings, Role.NURSE, name="Nina Nurse")
    bystander = await make_staff(settings, Role.DOCTOR)
    ward = await make_container()
    f1, f2 = await make_folder(ward, "patient-1"), await make_folder(ward, "patient-2")
    await assign(nurse.user, ward, f1, f2)
    await assign(bystander.user, ward, f1)

    response = await client.delete(f"/api/users/{nurse.user.id}", headers=admin.headers)
    assert response.status_code == 200
    assert await response.get_json() == {"message": "User Nina Nurse deleted successfully"}

    assert not await User.filter(id=nurse.user.id).exists()
    assert not await ContainerAssignment.filter(user_id=nurse.user.id).exists()
    assert not await FolderAssignment.filter(user_id=nurse.user.id).exists()
    assert not await Session.filter(user_id=nurse.user.id).exists()
    await error_message(await client.get("/api/auth/me", headers=nurse.headers), 401)
    # The bystander's access, the container and folders are untouched.
    assert await ContainerAssignment.filter(user_id=bystander.user.id).count() == 1
    assert await FolderAssignment.filter(user_id=bystander.user.id).count() == 1
    assert (await client.get("/api/auth/me", headers=bystander.headers)).status_code == 200
    response = await client.get(f"/api/users/{nurse.user.id}", headers=admin.headers)
    await error_message(response, 404)

    entries = await audit_entries("user_delete")
    assert len(entries) == 1
    assert entries[0].user_id == admin.user.id
    assert f"user={nurse.user.username}" in entries[0].details
    assert "containers=1" in entries[0].details and "folders=2" in entries[0].details


async def test_admin_cannot_delete_themself(client: Client, settings: Settings) -> None:
    admin = await make_admin(settings)
    await make_user(Role.ADMIN)
    response = await client.delete(f"/api/users/{admin.user.id}", headers=admin.headers)
    assert await error_message(response, 409) == "You cannot delete your own account."
    assert await User.filter(id=admin.user.id).exists()
    assert (await client.get("/api/auth/me", headers=admin.headers)).status_code == 200
    assert await audit_entries("user_delete") == []


async def test_admin_can_delete_another_admin_but_never_the_last(
    client: Client, settings: Settings
) -> None:
    admin = await make_admin(settings)
    other = await make_staff(settings, Role.ADMIN)
    response = await client.delete(f"/api/users/{other.user.id}", headers=admin.headers)
    assert response.status_code == 200
    await error_message(await client.get("/api/auth/me", headers=other.headers), 401)
    # Now the caller is the last admin: deleting themself is still refused.
    response = await client.delete(f"/api/users/{admin.user.id}", headers=admin.headers)
    await error_message(response, 409)
    assert await User.filter(role=Role.ADMIN).count() == 1
