"""Storage fixtures: every contract test runs on local disk and on S3 (moto's server on 127.0.0.1).

The moto server runs in its own process, started once per run: moto keeps objects (and
assembles multipart uploads) in memory, which would otherwise count against the memory
measured in this process, and its request handling would compete with the tests for the GIL.
"""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from aiobotocore.session import AioSession

from storage.local import LocalStorage
from storage.s3 import MIN_PART_SIZE, S3Storage
from tests.conftest import REGION
from tests.storage.backends import Backend

S3_PREFIX = "records"


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
