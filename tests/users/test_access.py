"""Who may call the user endpoints (admins, signed in), and unknown user ids."""

from __future__ import annotations

from quart.testing import QuartClient as Client

from bff.users.models import Role, User
from config.settings import Settings
from tests.factories import make_staff, make_user
from tests.helpers import error_message
from tests.users.helpers import make_admin, user_payload


async def test_user_endpoints_are_admin_only(client: Client, settings: Settings) -> None:
    target = await make_user(Role.NURSE)
    for role in (Role.DOCTOR, Role.NURSE, Role.ASSISTANT):
        staff = await make_staff(settings, role)
        h = staff.headers
        calls = [
            client.get("/api/users", headers=h),
            client.get("/api/users/with-assignments", headers=h),
            client.get("/api/users/dashboard", headers=h),
            client.get(f"/api/users/{target.id}", headers=h),
            client.put(f"/api/users/{target.id}", headers=h, json=user_payload(role="nurse")),
            client.delete(f"/api/users/{target.id}", headers=h),
            client.post("/api/auth/register", headers=h, json=user_payload()),
        ]
        for call in calls:
            response = await call
            assert await error_message(response, 403) == "You don't have permission to do this."
    assert await User.filter(id=target.id).exists()
    assert not await User.filter(username="dscully").exists()


async def test_user_endpoints_need_a_session(client: Client) -> None:
    for response in (
        await client.get("/api/users"),
        await client.get("/api/users/dashboard"),
        await client.post("/api/auth/register", json=user_payload()),
        await client.get("/api/users", headers={"x-auth-token": "not-a-token"}),
    ):
        await error_message(response, 401)


async def test_unknown_user_ids_are_404(client: Client, settings: Settings) -> None:
    admin = await make_admin(settings)
    gone = await make_user(Role.NURSE)
    missing = gone.id
    await gone.delete()
    h = admin.headers
    for response in (
        await client.get(f"/api/users/{missing}", headers=h),
        await client.put(f"/api/users/{missing}", headers=h, json=user_payload(role="nurse")),
        await client.delete(f"/api/users/{missing}", headers=h),
    ):
        assert await error_message(response, 404) == "User not found"
    for bad in ("abc", "-1", "1.5"):
        await error_message(await client.get(f"/api/users/{bad}", headers=h), 404)


async def test_out_of_range_user_id_is_404_not_500(client: Client, settings: Settings) -> None:
    admin = await make_admin(settings)
    h = admin.headers
    huge = 2**31
    for response in (
        await client.get(f"/api/users/{huge}", headers=h),
        await client.put(f"/api/users/{huge}", headers=h, json=user_payload(role="nurse")),
        await client.delete(f"/api/users/{huge}", headers=h),
        await client.get(f"/api/users/{10**30}", headers=h),
    ):
        assert await error_message(response, 404) == "User not found"
