"""Test fixtures: one migrated throwaway database per run (SQLite or PostgreSQL), emptied
before every test, and a real app started per test through its own start-up hooks.

BFF_TEST_DATABASE=postgres runs the suite on PostgreSQL at 127.0.0.1:5432 (a database named
bff_test_<random> is created and dropped); anything else runs it on a SQLite file. On PostgreSQL
only the tests that use a database run (the `database_url` fixture or the `database` marker):
the others ran in SQLite's phase already and would only repeat it.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import shutil
import tempfile
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from aiobotocore.session import AioSession, get_session
from asyncpg.exceptions import DeadlockDetectedError
from quart import Quart
from quart.testing import QuartClient as Client
from quart.testing.app import TestApp
from tortoise import Tortoise, connections

from bff.app import create_app
from bff.audit.guard import guard, unguard
from bff.audit.head import HEAD as AUDIT_HEAD
from bff.db import migrate
from bff.services import app_services
from config.settings import Settings, load_settings
from storage.base import ObjectKey
from storage.local import LocalStorage
from tools.devserver import RedisProcess, kill_group, running_redis, start_moto, throwaway_postgres

TABLES = [
    "intake_items",
    "oidc_link_offers",
    "oidc_expected",
    "oidc_seen",
    "oidc_handoffs",
    "oidc_sessions",
    "oidc_once",
    "oidc_links",
    "file_jobs",
    "search_texts",
    "mfa_challenges",
    "mfa_recovery_codes",
    "mfa_passkeys",
    "mfa_totp",
    "quarantined",
    "file_versions",
    "trashed_files",
    "pending_uploads",
    "pending_removals",
    "leases",
    "throttle_entries",
    "emergency_grants",
    "smart_tokens",
    "search_texts",
    "files",
    "folder_assignments",
    "container_assignments",
    "folders",
    "containers",
    "sessions",
    "audit_logs",
    "users",
]


@pytest.fixture(scope="session")
def run_dir() -> Iterator[Path]:
    """A temporary folder for this test run."""
    path = Path(tempfile.mkdtemp(prefix="bff-test-"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(scope="session")
async def database_url(run_dir: Path) -> AsyncIterator[str]:
    """A migrated throwaway database for the whole run."""
    if os.environ.get("BFF_TEST_DATABASE") == "postgres":
        async with throwaway_postgres("bff_test") as url:
            try:
                await migrate(load_settings(database_url=url, var_dir=run_dir))
                yield url
            finally:
                await Tortoise.close_connections()
    else:
        url = f"sqlite://{run_dir}/test.sqlite3"
        await migrate(load_settings(database_url=url, var_dir=run_dir))
        yield url


def make_settings(database_url: str, run_dir: Path, **overrides: Any) -> Settings:
    """Settings for a test app: throwaway database, generated secret under the run folder."""
    values: dict[str, Any] = {
        "database_url": database_url,
        "var_dir": run_dir,
        "storage_url": f"file://{run_dir}/storage",
        "redis_url": "",
        # No background reading of files' text (bff/jobs/) unless a test asks for it: tests
        # elsewhere upload files that are not what their names say, and OCR is slow.
        "job_workers": 0,
    }
    values.update(overrides)
    return load_settings(**values)


@pytest.fixture
async def settings(database_url: str, run_dir: Path) -> Settings:
    """Default settings for one test."""
    return make_settings(database_url, run_dir)


async def empty_tables() -> None:
    """Empty every table of the app (one TRUNCATE on PostgreSQL), the audit log too: its
    triggers are dropped for it and created again."""
    conn = connections.get("default")
    await unguard(conn)
    try:
        if conn.capabilities.dialect == "postgres":
            for attempt in range(5):
                try:
                    await conn.execute_script(
                        f"TRUNCATE {', '.join(TABLES)} RESTART IDENTITY CASCADE"
                    )
                    break
                except DeadlockDetectedError:
                    # The started app's job runner claimed a job (SELECT ... FOR UPDATE) while
                    # the TRUNCATE took its locks table by table: PostgreSQL ended one of them.
                    if attempt == 4:
                        raise
                    await asyncio.sleep(0.05)
        else:
            for table in TABLES:
                await conn.execute_script(f'DELETE FROM "{table}"')
        await conn.execute_script("UPDATE audit_legacy SET last_id = 0")  # every entry keyed
    finally:
        await guard(conn)


APP_SECONDS = 120  # an app's start-up and its shutdown, each, in started_app


@asynccontextmanager
async def started_app(settings: Settings) -> AsyncIterator[Quart]:
    """Start an app through its own start-up hooks on an emptied database; `async with`, so
    that a failing test stops it at once (an abandoned `async for` generator is finalised
    later, in whichever test runs then, closing that test's database connections)."""
    app = create_app(settings, bootstrap_admin=False)
    # Quart's test app gives start-up and shutdown 6 s each; the app's own stop steps may take
    # up to STEP_SECONDS each (bff/shutdown.py) on a loaded machine (a CI run saw the audit
    # head's step take 7.5 s): cut short, the stop went on beside the next test's app and
    # closed its database. Waited for whole here, every test starts after the last one ended.
    async with TestApp(app, startup_timeout=APP_SECONDS, shutdown_timeout=APP_SECONDS):
        await empty_tables()
        # The run's local storage is shared with earlier tests: its signed audit head names their
        # log. (S3 tests have buckets of their own, and some point at no server at all.)
        storage = app_services(app).storage
        if isinstance(storage, LocalStorage):
            await storage.delete_object(ObjectKey.parse(AUDIT_HEAD))
        yield app


@pytest.fixture
async def app(settings: Settings) -> AsyncIterator[Quart]:
    """The real app, started, on an empty database."""
    async with started_app(settings) as started:
        yield started


@pytest.fixture
def client(app: Quart) -> Client:
    """A test client of the app."""
    return app.test_client()


REGION = "us-east-1"


@pytest.fixture
def redis() -> Iterator[RedisProcess]:
    """A Redis of the test's own (its channel carries no one else's events; it may stop it)."""
    with running_redis() as server:
        yield server


@pytest.fixture(scope="session")
def s3_endpoint() -> Iterator[str]:
    """A moto S3 server on 127.0.0.1, with dummy AWS credentials in the environment."""
    with pytest.MonkeyPatch.context() as env:
        env.setenv("AWS_ACCESS_KEY_ID", "testing")
        env.setenv("AWS_SECRET_ACCESS_KEY", "testing")
        env.setenv("AWS_DEFAULT_REGION", REGION)
        env.setenv("AWS_EC2_METADATA_DISABLED", "true")
        env.setenv("AWS_CONFIG_FILE", os.devnull)
        env.setenv("AWS_SHARED_CREDENTIALS_FILE", os.devnull)
        for name in ("AWS_SESSION_TOKEN", "AWS_PROFILE", "AWS_ENDPOINT_URL"):
            env.delenv(name, raising=False)
        server, endpoint = start_moto()
        try:
            yield endpoint
        finally:
            kill_group(server)


@pytest.fixture(scope="session")
def s3_session(s3_endpoint: str) -> AioSession:
    """One aiobotocore session for the run: it caches the S3 model, which is slow to parse."""
    return get_session()


@pytest.fixture(params=["local", "s3"])
async def storage_app(
    request: pytest.FixtureRequest, database_url: str, run_dir: Path
) -> AsyncIterator[Quart]:
    """The real app on each storage backend in turn, with empty storage."""
    if request.param == "local":
        storage_url = f"file://{request.getfixturevalue('tmp_path')}/storage"
        settings = make_settings(database_url, run_dir, storage_url=storage_url)
    else:
        endpoint: str = request.getfixturevalue("s3_endpoint")
        session: AioSession = request.getfixturevalue("s3_session")
        bucket = "files-" + secrets.token_hex(6)
        async with session.create_client("s3", endpoint_url=endpoint, region_name=REGION) as s3:
            await s3.create_bucket(Bucket=bucket)
        url = f"s3://{bucket}/records?endpoint_url={endpoint}&region={REGION}"
        settings = make_settings(database_url, run_dir, storage_url=url)
    async with started_app(settings) as app:
        yield app


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """On PostgreSQL's run, leave out the tests that never touch the database under test."""
    if os.environ.get("BFF_TEST_DATABASE") != "postgres":
        return
    keep, drop = [], []
    for item in items:
        uses = "database_url" in getattr(item, "fixturenames", ()) or item.get_closest_marker(
            "database"
        )
        (keep if uses else drop).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep
