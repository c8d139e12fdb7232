"""The app starts, answers health, and renders errors as JSON."""

from __future__ import annotations

from quart.testing import QuartClient as Client

from bff.users.models import Role
from config.settings import Settings
from tests.factories import make_staff


async def test_health(client: Client) -> None:
    response = await client.get("/api/health")
    assert response.status_code == 200
    assert await response.get_json() == {"status": "ok", "database": "ok"}


async def test_me(client: Client, settings: Settings) -> None:
    nurse = await make_staff(settings, Role.NURSE)
    response = await client.get("/api/auth/me", headers=nurse.headers)
    assert response.status_code == 200
    body = await response.get_json()
    assert body["user"]["username"] == nurse.user.username
