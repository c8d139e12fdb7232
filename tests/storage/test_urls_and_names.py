"""Choosing a backend from BFF_STORAGE_URL, name validation, and the unavailable-storage errors."""

from __future__ import annotations

import os
import secrets
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from storage import (
    InvalidName,
    InvalidStorageURL,
    StorageUnavailable,
    is_valid_name,
    open_storage,
    validate_name,
)
from storage.local import LocalStorage
from storage.s3 import S3Storage

# An unclosed response or an aiohttp warning about a blocking body is a bug here.
pytestmark = pytest.mark.filterwarnings("error::ResourceWarning")


def test_file_url_relative_and_absolute() -> None:
    relative = open_storage("file://var/storage")
    assert isinstance(relative, LocalStorage)
    assert relative.root == Path(os.getcwd(), "var", "storage")
    absolute = open_storage("file:///srv/records")
    assert isinstance(absolute, LocalStorage)
    assert absolute.root == Path("/srv/records")


def test_s3_url() -> None:
    storage = open_storage(
        "s3://patient-files/portal/prod?endpoint_url=http://127.0.0.1:9000&region=eu-west-1"
    )
    assert isinstance(storage, S3Storage)
    assert storage.bucket == "patient-files"
    assert storage.prefix == "portal/prod/"
    assert storage.endpoint_url == "http://127.0.0.1:9000"
    assert storage.region == "eu-west-1"
    plain = open_storage("s3://patient-files")
    assert isinstance(plain, S3Storage)
    assert (plain.prefix, plain.endpoint_url, plain.region) == ("", None, None)


@pytest.mark.parametrize(
    "url",
    [
        "",
        "var/storage",
        "http://example.test/files",
        "ftp://files",
        "file://",
        "file://var/storage?x=1",
        "s3://",
        "s3:///prefix",
        "s3://bucket?color=blue",
        "s3://bucket?region=a&region=b",
        "s3://bucket?endpoint_url=ftp://127.0.0.1",
        "s3://user:secret@bucket",
        "s3://bucket:9000",
    ],
)
def test_bad_urls_are_refused_clearly(url: str) -> None:
    with pytest.raises(InvalidStorageURL):
        open_storage(url)


def test_url_error_does_not_echo_secrets() -> None:
    with pytest.raises(InvalidStorageURL) as caught:
        open_storage("s3://user:hunter2@bucket")
    assert "hunter2" not in str(caught.value)


def test_validate_name() -> None:
    assert validate_name("patient-1") == "patient-1"
    assert is_valid_name("report (final).pdf")
    for bad in ["", "..", "a/b", "..%2F", "a\x00", "x" * 256, "cod\u202eexe.doc", "a\ud800"]:
        assert not is_valid_name(bad), bad
    with pytest.raises(InvalidName, match="255"):
        validate_name("x" * 256, "file name")
    with pytest.raises(InvalidName):
        validate_name(None, "file name")  # type: ignore[arg-type]


async def chunks() -> AsyncIterator[bytes]:
    yield b"data"


async def test_local_root_that_is_a_file_is_unavailable(tmp_path: Path) -> None:
    not_a_dir = tmp_path / "file"
    not_a_dir.write_bytes(b"")
    storage = LocalStorage(not_a_dir)
    with pytest.raises(StorageUnavailable):
        await storage.start()
    with pytest.raises(StorageUnavailable):
        await storage.write("clinic", "patient-1", "a.txt", chunks())
    with pytest.raises(StorageUnavailable):
        await storage.create_folder("clinic", "patient-1")


async def test_s3_missing_bucket_is_unavailable(s3_endpoint: str) -> None:
    bucket = "missing-" + secrets.token_hex(6)
    async with open_storage(f"s3://{bucket}?endpoint_url={s3_endpoint}&region=us-east-1") as s3:
        with pytest.raises(StorageUnavailable):
            await s3.list_containers()
        with pytest.raises(StorageUnavailable):
            await s3.write("clinic", "patient-1", "a.txt", chunks())


async def test_s3_must_be_started() -> None:
    storage = open_storage("s3://bucket")
    with pytest.raises(RuntimeError, match="start"):
        await storage.list_containers()
