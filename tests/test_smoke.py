"""The app starts, answers health, and renders errors as JSON."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest
from quart.testing import QuartClient as Client

from bff.app import HEALTH_CHECK_SECONDS
from bff.users.models import Role
from config.settings import Settings
from tests.conftest import make_settings, started_app
from tests.factories import make_staff
from tools.devserver import free_port


async def test_health(client: Client) -> None:
    response = await client.get("/api/health")
    assert response.status_code == 200
    assert await response.get_json() == {"status": "ok", "database": "ok", "storage": "ok"}


def _s3_credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    """Some credentials: without them the S3 client fails before sending anything."""
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "health-test")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "health-test")


async def test_health_is_503_when_storage_is_unreachable(
    database_url: str, run_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _s3_credentials(monkeypatch)
    dead = f"http://127.0.0.1:{free_port()}"  # nothing listens there
    settings = make_settings(
        database_url, run_dir, storage_url=f"s3://bucket?endpoint_url={dead}&region=us-east-1"
    )
    async with started_app(settings) as app:
        response = await app.test_client().get("/api/health")
        assert response.status_code == 503
        assert await response.get_json() == {"message": "The file storage is unavailable."}


async def test_health_answers_within_its_limit_when_storage_hangs(
    database_url: str, run_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An S3 endpoint that accepts connections and never answers (a hung proxy or server):
    without the limit, the probe waits out the client's read timeout on every retry (minutes)."""
    _s3_credentials(monkeypatch)
    held: list[asyncio.StreamWriter] = []

    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        held.append(writer)
        await reader.read()  # until the client gives up

    server = await asyncio.start_server(silent, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    settings = make_settings(
        database_url,
        run_dir,
        storage_url=f"s3://bucket?endpoint_url=http://127.0.0.1:{port}&region=us-east-1",
    )
    try:
        async with started_app(settings) as app:
            began = time.monotonic()
            response = await app.test_client().get("/api/health")
            took = time.monotonic() - began
            assert response.status_code == 503
            assert await response.get_json() == {"message": "The file storage is unavailable."}
            assert held, "the probe reached the silent endpoint"
            assert took < HEALTH_CHECK_SECONDS + 4, took
    finally:
        for writer in held:
            writer.close()
        server.close()
        await server.wait_closed()


async def test_me(client: Client, settings: Settings) -> None:
    nurse = await make_staff(settings, Role.NURSE)
    response = await client.get("/api/auth/me", headers=nurse.headers)
    assert response.status_code == 200
    body = await response.get_json()
    assert body["user"]["username"] == nurse.user.username
