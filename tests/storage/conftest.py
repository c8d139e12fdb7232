"""Storage fixtures: every contract test runs on local disk and on S3 (moto's server on 127.0.0.1).

The moto server runs in its own process, started once per run: moto keeps objects (and
assembles multipart uploads) in memory, which would otherwise count against the memory
measured in this process, and its request handling would compete with the tests for the GIL.
"""

from __future__ import annotations

import os
import secrets
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from aiobotocore.session import AioSession, get_session

from storage.local import LocalStorage
from storage.s3 import MIN_PART_SIZE, S3Storage
from tests.storage.backends import Backend

REGION = "us-east-1"
S3_PREFIX = "records"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


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
        port = _free_port()
        server = subprocess.Popen(  # noqa: S603 - our own interpreter, fixed arguments
            [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            deadline = time.monotonic() + 30
            while True:
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    break
                except OSError:
                    if server.poll() is not None or time.monotonic() > deadline:
                        raise RuntimeError("the moto S3 server did not start") from None
                    time.sleep(0.1)
            yield f"http://127.0.0.1:{port}"
        finally:
            server.terminate()
            try:
                server.wait(timeout=10)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()


@pytest.fixture(scope="session")
def s3_session(s3_endpoint: str) -> AioSession:
    """One aiobotocore session for the run: it caches the S3 model, which is slow to parse."""
    return get_session()


@pytest.fixture(params=["local", "s3"])
async def backend(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Backend]:
    """Each backend in turn: local disk in a temp dir, or S3 in a fresh bucket."""
    if request.param == "local":
        root = tmp_path / "storage"

        async def local_everything() -> list[str]:
            return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())

        async def local_plant(container: str, folder: str) -> None:
            directory = root / container / folder
            directory.mkdir(parents=True, exist_ok=True)
            (directory / ".upload-0123abcd.part").write_bytes(b"half an upload")

        async with LocalStorage(root) as local:
            yield Backend("local", local, local_everything, local_plant)
        return

    endpoint: str = request.getfixturevalue("s3_endpoint")
    session: AioSession = request.getfixturevalue("s3_session")
    bucket = "test-" + secrets.token_hex(8)
    async with session.create_client("s3", endpoint_url=endpoint, region_name=REGION) as admin:
        await admin.create_bucket(Bucket=bucket)

        async def s3_everything() -> list[str]:
            listed: dict[str, Any] = await admin.list_objects_v2(Bucket=bucket)
            uploads: dict[str, Any] = await admin.list_multipart_uploads(Bucket=bucket)
            keys = [entry["Key"] for entry in listed.get("Contents", [])]
            pending = [f"multipart:{entry['Key']}" for entry in uploads.get("Uploads", [])]
            # Folder markers are how S3 keeps empty folders; they are not file content.
            return sorted(
                key.replace(f"{S3_PREFIX}/", "", 1)
                for key in keys + pending
                if not key.endswith("/")
            )

        async def s3_plant(container: str, folder: str) -> None:
            key = f"{S3_PREFIX}/{container}/{folder}/.upload-0123abcd.part"
            await admin.put_object(Bucket=bucket, Key=key, Body=b"half an upload")

        s3 = S3Storage(
            bucket,
            S3_PREFIX,
            endpoint_url=endpoint,
            region=REGION,
            part_size=MIN_PART_SIZE,
            session=session,
        )
        async with s3:
            yield Backend("s3", s3, s3_everything, s3_plant)
