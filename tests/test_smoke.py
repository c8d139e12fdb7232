"""The app starts, answers health, and renders errors as JSON."""

from __future__ import annotations

from pathlib import Path

from quart.testing import QuartClient as Client

from bff.users.models import Role
from config.settings import Settings
from tests.conftest import make_settings, started_app
from tests.factories import make_staff
from tools.devserver import free_port


async def test_health(client: Client) -> None:
    response = await client.get("/api/health")
    assert response.status_code == 200
    assert await response.get_json() == {"status": "ok", "database": "ok", "storage": "ok"}


async def test_health_is_503_when_storage_is_unreachable(database_url: str, run_dir: Path) -> None:
    dead = f"http://127.0.0.1:{free_port()}"  # nothing listens there
    settings = make_settings(
        database_url, run_dir, storage_url=f"s3://bucket?endpoint_url={dead}&region=us-east-1"
    )
    async with started_app(settings) as app:
        response = await app.test_client().get("/api/health")
        assert response.status_code == 503
        assert await response.get_json() == {"message": "The file storage is unavailable."}


async def test_me(client: Client, settings: Settings) -> None:
    nurse = await make_staff(settings, Role.NURSE)
    response = await client.get("/api/auth/me", headers=nurse.headers)
    assert response.status_code == 200
    body = await response.get_json()
    assert body["user"]["username"] == nurse.user.username
