"""A real cluster for these tests: two instances behind nginx, on a throwaway PostgreSQL
database, a Redis of our own (so it can be stopped) and the moto S3 server."""

from __future__ import annotations

import contextlib
import secrets
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from tests.conftest import REGION
from tools.devcluster import Cluster
from tools.devserver import RedisProcess, running_redis

ADMIN_PASSWORD = "cluster-admin-password"


@pytest.fixture(scope="module")
def redis() -> Iterator[RedisProcess]:
    with running_redis() as server:
        yield server


@pytest.fixture(scope="module")
def cluster_db() -> Iterator[str]:
    name = "bff_cluster_test_" + secrets.token_hex(4)
    pg = ["-h", "127.0.0.1", "-U", "postgres"]
    subprocess.run(["createdb", *pg, name], check=True)  # noqa: S603, S607 - PostgreSQL's own tool
    try:
        yield f"postgres://postgres@127.0.0.1:5432/{name}"
    finally:
        subprocess.run(["dropdb", *pg, "--force", name], check=False)  # noqa: S603, S607


@contextlib.contextmanager
def started_cluster(
    root: Path,
    database_url: str,
    redis: RedisProcess,
    s3_endpoint: str,
    settings: dict[str, str],
    *,
    bucket: str | None = None,
    workers: int = 1,
) -> Iterator[Cluster]:
    """A cluster on a bucket of its own (bucket: one the caller made), stopped at the end."""
    if bucket is None:
        import boto3

        bucket = "cluster-" + secrets.token_hex(4)
        boto3.client("s3", endpoint_url=s3_endpoint, region_name=REGION).create_bucket(
            Bucket=bucket
        )
    running = Cluster(
        root=root,
        database_url=database_url,
        redis_url=redis.url,
        storage_url=f"s3://{bucket}/records?endpoint_url={s3_endpoint}&region={REGION}",
        workers=workers,
        settings={"admin_password": ADMIN_PASSWORD, **settings},
    )
    running.start()
    try:
        yield running
    finally:
        running.stop()


@pytest.fixture(scope="module")
def cluster(
    tmp_path_factory: pytest.TempPathFactory,
    cluster_db: str,
    redis: RedisProcess,
    s3_endpoint: str,
) -> Iterator[Cluster]:
    settings = {
        "login_max_failures": "3",
        # What a killed instance's uploads left is swept within seconds, not minutes.
        "upload_staging_grace_seconds": "2",
        "upload_sweep_seconds": "0.5",
    }
    with started_cluster(
        tmp_path_factory.mktemp("cluster"), cluster_db, redis, s3_endpoint, settings
    ) as running:
        yield running


async def call(
    http: aiohttp.ClientSession,
    method: str,
    url: str,
    token: str | None = None,
    expect: int | None = None,
    **kwargs: Any,
) -> Any:
    """One request; checks the status (expect, or any success) and returns the JSON body."""
    headers = {**kwargs.pop("headers", {}), **({"x-auth-token": token} if token else {})}
    async with http.request(method, url, headers=headers, **kwargs) as response:
        body = await response.read()
        if expect is not None:
            assert response.status == expect, (url, response.status, body[:300])
        else:
            assert response.status < 400, (url, response.status, body[:300])
        if response.content_type == "application/json":
            return await response.json()
        return body


async def sign_in(http: aiohttp.ClientSession, base: str, username: str, password: str) -> str:
    body = await call(
        http, "POST", f"{base}/api/auth/login", json={"username": username, "password": password}
    )
    token: str = body["token"]
    return token
