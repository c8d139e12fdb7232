"""`python -m bff storage reindex` run again and again on a serving deployment while four
clients upload into a folder of many files and an admin deletes some: every upload answered
201 stays listed, no deleted file comes back, and the reindex adds and removes nothing (issue
31, point 1: it listed storage, then read the index without a lock, so a file committed in
between was "no longer in storage" and its row went, and one deleted in between came back).

A real server and the real command line, on local disk (SQLite and, with
BFF_TEST_DATABASE=postgres, PostgreSQL) and on S3 (moto's server, SQLite's phase).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest
from aiobotocore.session import AioSession

from storage import open_storage
from tests.conftest import REGION
from tools.devserver import REPO, ServerProcess, local_env, throwaway_postgres

pytestmark = pytest.mark.database

ADMIN_PASSWORD = "reindex-live-admin-pass"
CONTAINER, FOLDER = "ward-reindex", "patient-1"
SEEDED = {"local": 400, "s3": 200}  # files in the folder before the uploads start
CLIENTS = 4
REINDEX_RUNS = 3
SITES = ["local"] if os.environ.get("BFF_TEST_DATABASE") == "postgres" else ["local", "s3"]


async def _seed(storage_url: str, count: int) -> None:
    """Files put into the folder by another tool (the first reindex indexes them)."""
    async with open_storage(storage_url) as storage:
        for start in range(0, count, 50):
            await asyncio.gather(
                *(
                    storage.write(CONTAINER, FOLDER, f"seed-{n:04d}.txt", _once(b"seeded"))
                    for n in range(start, min(count, start + 50))
                )
            )


async def _once(data: bytes) -> AsyncIterator[bytes]:
    yield data


@pytest.fixture(params=SITES)
async def serving(
    request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[tuple[ServerProcess, dict[str, str]]]:
    async with contextlib.AsyncExitStack() as stack:
        database_url = f"sqlite://{tmp_path}/bff.sqlite3"
        if os.environ.get("BFF_TEST_DATABASE") == "postgres":
            database_url = await stack.enter_async_context(throwaway_postgres("bff_reindex"))
        env = local_env(tmp_path, database_url=database_url, admin_password=ADMIN_PASSWORD)
        if request.param == "s3":
            endpoint: str = request.getfixturevalue("s3_endpoint")
            session: AioSession = request.getfixturevalue("s3_session")
            bucket = "reindex-" + secrets.token_hex(6)
            async with session.create_client("s3", endpoint_url=endpoint, region_name=REGION) as s3:
                await s3.create_bucket(Bucket=bucket)
            url = f"s3://{bucket}/records?endpoint_url={endpoint}&region={REGION}"
            env = {**os.environ, **env, "BFF_STORAGE_URL": url}
        await _seed(env["BFF_STORAGE_URL"], SEEDED[request.param])
        server = ServerProcess(env)
        stack.callback(server.stop)
        yield server, env


async def reindex(env: dict[str, str]) -> str:
    """The real command line, beside the running server: its output."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bff",
        "storage",
        "reindex",
        env=env,
        cwd=REPO,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), timeout=120)
    assert process.returncode == 0, err.decode()
    return out.decode()


async def _uploader(
    http: aiohttp.ClientSession,
    url: str,
    headers: dict[str, str],
    client: int,
    stop: asyncio.Event,
    acknowledged: list[str],
    refused: list[int],
) -> None:
    for n in range(2000):  # bounded; the reindex runs end it long before
        if stop.is_set():
            return
        name = f"upload-{client}-{n:04d}.txt"
        form = aiohttp.FormData()
        form.add_field("file", f"{client}:{n}".encode(), filename=name)
        async with http.post(url, data=form, headers=headers) as response:
            await response.read()
            if response.status == 201:
                acknowledged.append(name)
            else:
                refused.append(response.status)


async def _deleter(
    http: aiohttp.ClientSession,
    url: str,
    headers: dict[str, str],
    stop: asyncio.Event,
    deleted: list[str],
) -> None:
    """An admin deleting seeded files one after another (each moved to the trash)."""
    for n in range(2000):
        if stop.is_set():
            return
        name = f"seed-{n:04d}.txt"
        async with http.delete(f"{url}/{name}", headers=headers) as response:
            await response.read()
            if response.status == 200:
                deleted.append(name)


async def test_reindex_beside_uploads_never_hides_an_acknowledged_file(
    serving: tuple[ServerProcess, dict[str, str]],
) -> None:
    server, env = serving
    first = await reindex(env)  # indexes the seeded folder (no traffic yet)
    seeded = SEEDED["local" if env["BFF_STORAGE_URL"].startswith("file://") else "s3"]
    assert f"Files added: {seeded}" in first
    url = f"{server.base}/api/blobs/{CONTAINER}/{FOLDER}"
    async with aiohttp.ClientSession() as http:
        body = {"username": "admin", "password": ADMIN_PASSWORD}
        async with http.post(f"{server.base}/api/auth/login", json=body) as response:
            assert response.status == 200, await response.text()
            headers = {"x-auth-token": (await response.json())["token"]}
        stop = asyncio.Event()
        acknowledged: list[str] = []
        refused: list[int] = []
        deleted: list[str] = []
        clients = [
            asyncio.create_task(_uploader(http, url, headers, c, stop, acknowledged, refused))
            for c in range(CLIENTS)
        ]
        clients.append(asyncio.create_task(_deleter(http, url, headers, stop, deleted)))
        outputs = []
        try:
            for _ in range(REINDEX_RUNS):
                outputs.append(await reindex(env))
        finally:
            stop.set()
            await asyncio.gather(*clients)
        async with http.get(url, headers=headers) as response:
            listed = {blob["name"] for blob in (await response.json())["blobs"]}
    missing = sorted(set(acknowledged) - listed)
    back = sorted(set(deleted) & listed)
    removed = [line for out in outputs for line in out.splitlines() if "removed" in line]
    print(
        f"\n{len(acknowledged)} uploads acknowledged during {REINDEX_RUNS} reindex runs, "
        f"{len(missing)} of them not listed afterwards; refused: {refused}; {removed}; "
        f"{len(deleted)} files deleted meanwhile, {len(back)} of them listed again"
    )
    assert acknowledged and not refused
    assert not missing, f"acknowledged but not listed: {missing}"
    assert deleted and not back, f"deleted but listed again: {back}"
    for out in outputs:
        assert "Files removed (no longer in storage): 0" in out, out
        assert "Files added: 0" in out, out
