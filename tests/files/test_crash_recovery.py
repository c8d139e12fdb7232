"""A real server killed at each point of an upload, on local disk and on S3 (moto's server):
after a restart no object lies outside the index, a retry of the name succeeds, the listing
and the view link agree, and `storage reindex` brings back nothing that was not acknowledged.

The server ends itself at the chosen point (BFF_TESTING + BFF_TEST_CRASH_AT: `os._exit`, no
clean-up runs, as under SIGKILL). Runs on PostgreSQL with BFF_TEST_DATABASE=postgres (local
disk only: see SITES).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import os
import secrets
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiobotocore.session import AioSession

from bff.audit.signed import PREFIX as AUDIT_PREFIX
from bff.files.staging import CRASH_POINTS
from tests.conftest import REGION
from tools.devserver import REPO, ServerProcess, local_env, query_database, throwaway_postgres

# It reads BFF_TEST_DATABASE itself: PostgreSQL's phase must run it too.
pytestmark = pytest.mark.database

ADMIN_PASSWORD = "crash-recovery-admin-pass"
BOUNDARY = "crash-boundary-5c1e"
MB = 1024 * 1024
SIZE_MB = 12  # past S3's first 8 MiB part, so "mid_write" interrupts a multipart upload
AUDIT_AREA = AUDIT_PREFIX + "/"


@dataclass
class Site:
    """One backend's storage and database, shared by the module's crash cases."""

    kind: str
    env: dict[str, str]
    database_url: str
    root: Path
    bucket: str = ""
    s3: Any = None
    log: list[str] = field(default_factory=list)

    async def objects(self) -> set[str]:
        """Everything physically stored: every file (local), every key and every unfinished
        multipart upload (S3), folder markers and the audit log's own objects (its signed head,
        checkpoints: bff/audit/integrity.py) aside; as container/folder/name paths."""
        if self.kind == "local":
            storage = self.root / "storage"
            paths = {str(p.relative_to(storage)) for p in storage.rglob("*") if p.is_file()}
            return {p for p in paths if not p.startswith(AUDIT_AREA)}
        keys: set[str] = set()
        paginator = self.s3.get_paginator("list_objects_v2")
        async for page in paginator.paginate(Bucket=self.bucket):
            keys |= {e["Key"] for e in page.get("Contents", []) if not e["Key"].endswith("/")}
        uploads = await self.s3.list_multipart_uploads(Bucket=self.bucket)
        keys |= {f"multipart:{u['Key']}" for u in uploads.get("Uploads", [])}
        paths = {key.removeprefix("records/") for key in keys}
        return {p for p in paths if not p.startswith(AUDIT_AREA)}

    async def pending(self) -> int:
        """How many pending uploads the database records."""
        return len(await self._query("SELECT id FROM pending_uploads"))

    async def _query(self, sql: str) -> list[tuple[Any, ...]]:
        return await query_database(self.database_url, sql)

    async def indexed(self) -> set[str]:
        """What the index accounts for: each file, and each converted RTF's kept original."""
        sql = (
            "SELECT c.name AS c, f.name AS f, x.name AS n, x.original_rtf_name AS o FROM files x "
            "JOIN folders f ON f.id = x.folder_id JOIN containers c ON c.id = f.container_id"
        )
        rows = await self._query(sql)
        paths = {f"{c}/{f}/{n}" for c, f, n, _ in rows}
        return paths | {f"{c}/{f}/.rtf-original.{o}" for c, f, _, o in rows if o}


# What a crash leaves in storage does not depend on the database, nor what it leaves in the
# database on the storage: each storage runs in SQLite's phase, PostgreSQL's runs on local
# disk (8 real-server crashes fewer, about a minute of the test command).
SITES = ["local"] if os.environ.get("BFF_TEST_DATABASE") == "postgres" else ["local", "s3"]


@pytest.fixture(scope="module", params=SITES)
async def site(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[Site]:
    root = tmp_path_factory.mktemp(f"crash-{request.param}")
    settings = {
        "admin_password": ADMIN_PASSWORD,
        "upload_staging_grace_seconds": "1",
        "upload_sweep_seconds": "0.5",
    }
    async with contextlib.AsyncExitStack() as stack:
        database_url = f"sqlite://{root}/bff.sqlite3"
        if os.environ.get("BFF_TEST_DATABASE") == "postgres":
            database_url = await stack.enter_async_context(throwaway_postgres("bff_crash"))
        env = local_env(root, database_url=database_url, **settings)
        if request.param == "local":
            yield Site("local", env, database_url, root)
            return
        endpoint: str = request.getfixturevalue("s3_endpoint")
        session: AioSession = request.getfixturevalue("s3_session")
        bucket = "crash-" + secrets.token_hex(6)
        s3 = await stack.enter_async_context(
            session.create_client("s3", endpoint_url=endpoint, region_name=REGION)
        )
        await s3.create_bucket(Bucket=bucket)
        env = {
            **os.environ,
            **env,
            "BFF_STORAGE_URL": f"s3://{bucket}/records?endpoint_url={endpoint}&region={REGION}",
        }
        yield Site("s3", env, database_url, root, bucket, s3)


@contextlib.contextmanager
def serving(site: Site, crash_at: str = "") -> Iterator[ServerProcess]:
    env = {**site.env, "BFF_TESTING": "true", "BFF_TEST_CRASH_AT": crash_at}
    server = ServerProcess(env)
    try:
        yield server
    finally:
        server.stop()


def _block(index: int) -> bytes:
    # Text (hex digits): an upload's content must be of a type the content checks accept.
    return hashlib.sha256(f"crash-{index}".encode()).hexdigest().encode() * (MB // 64)


def content_digest() -> str:
    digest = hashlib.sha256()
    for index in range(SIZE_MB):
        digest.update(_block(index))
    return digest.hexdigest()


async def _body(name: str) -> AsyncIterator[bytes]:
    yield (
        f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="filename"\r\n\r\n{name}\r\n'
        f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="{name}"\r\n'
        "Content-Type: application/octet-stream\r\n\r\n"
    ).encode()
    for index in range(SIZE_MB):
        yield _block(index)
    yield f"\r\n--{BOUNDARY}--\r\n".encode()


async def sign_in(http: aiohttp.ClientSession, base: str) -> dict[str, str]:
    body = {"username": "admin", "password": ADMIN_PASSWORD}
    async with http.post(f"{base}/api/auth/login", json=body) as response:
        assert response.status == 200, await response.text()
        return {"x-auth-token": (await response.json())["token"]}


async def upload(http: aiohttp.ClientSession, base: str, headers: dict[str, str], path: str) -> int:
    """Upload SIZE_MB to path (container/folder/name); the status, or 0 if the connection
    ended without an answer."""
    folder, name = path.rsplit("/", 1)
    try:
        async with http.post(
            f"{base}/api/blobs/{folder}",
            data=_body(name),
            headers={**headers, "Content-Type": f"multipart/form-data; boundary={BOUNDARY}"},
        ) as response:
            await response.read()
            return response.status
    except (aiohttp.ClientError, ConnectionError):
        return 0


def wait_for_exit(server: ServerProcess, seconds: float = 30) -> int:
    try:
        return server.process.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        pytest.fail("the server did not end at its crash point")


async def wait_until_consistent(site: Site, seconds: float = 20) -> tuple[set[str], set[str]]:
    """Objects and index once they agree and no upload is pending (the sweep runs every 0.5 s
    and takes what was silent for 1 s)."""
    deadline = time.monotonic() + seconds
    while True:
        objects, indexed = await site.objects(), await site.indexed()
        settled = objects == indexed and await site.pending() == 0
        if settled or time.monotonic() > deadline:
            return objects, indexed
        await asyncio.sleep(0.2)


def reindex(site: Site) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "bff", "storage", "reindex"],
        env=site.env,
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return done.stdout


@pytest.mark.parametrize("point", CRASH_POINTS)
async def test_an_upload_killed_at_any_point_leaves_nothing_behind(site: Site, point: str) -> None:
    ward = f"crash-{point.replace('_', '-')}"
    path = f"{ward}/patient-1/scan.bin"
    async with aiohttp.ClientSession() as http:
        with serving(site, crash_at=point) as server:
            headers = await sign_in(http, server.base)
            for url, body in (
                ("/api/admin/containers", {"name": ward}),
                (f"/api/admin/containers/{ward}/folders", {"name": "patient-1"}),
            ):
                async with http.post(server.base + url, json=body, headers=headers) as response:
                    assert response.status == 201
            assert await upload(http, server.base, headers, path) == 0  # no answer: it died
            wait_for_exit(server)
        left = await site.objects() - await site.indexed()
        site.log.append(f"{site.kind} {point}: left outside the index at the crash: {len(left)}")

        with serving(site) as server:
            objects, indexed = await wait_until_consistent(site)
            assert objects == indexed, f"outside the index: {objects - indexed}"
            assert await site.pending() == 0
            headers = await sign_in(http, server.base)
            listing_url = f"{server.base}/api/blobs/{ward}/patient-1"
            async with http.get(listing_url, headers=headers) as response:
                listed = [b["name"] for b in (await response.json())["blobs"]]
            # Only a crash after the commit leaves the file (whole); then it is listed and its
            # name taken; otherwise the name is free.
            committed = point == "after_commit"
            assert listed == (["scan.bin"] if committed else [])
            status = await upload(http, server.base, headers, path)
            assert status == (409 if committed else 201)
            async with http.get(listing_url, headers=headers) as response:
                assert [b["name"] for b in (await response.json())["blobs"]] == ["scan.bin"]
            async with http.get(f"{listing_url}/scan.bin/url", headers=headers) as response:
                link = (await response.json())["url"]
            async with http.get(server.base + link) as response:
                assert response.status == 200
                assert hashlib.sha256(await response.read()).hexdigest() == content_digest()
            objects, indexed = await site.objects(), await site.indexed()
            assert objects == indexed
        report = reindex(site)
        assert "Files added: 0" in report and "Files removed (no longer in storage): 0" in report
        assert await site.objects() == await site.indexed()
    print("\n" + site.log[-1])
