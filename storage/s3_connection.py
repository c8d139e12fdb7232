"""The S3 backend's connection: the client's configuration, the bucket and key prefix it works
in, and how botocore's and aiohttp's errors become the storage's."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import aiohttp
from aiobotocore.config import AioConfig
from botocore.exceptions import BotoCoreError, ClientError

from storage.base import NotFound, StorageUnavailable, guess_content_type

MIN_PART_SIZE = 5 * 1024 * 1024  # S3's minimum for every part but the last
COPY_LIMIT = 5 * 1024 * 1024 * 1024  # the largest object one CopyObject may copy
PART_SIZE = 8 * 1024 * 1024
MISSING_CODES = {"NoSuchKey", "404", "NotFound"}
# What S3 reports for an object stored without a content type: treat it as unknown.
_S3_DEFAULT_TYPE = "binary/octet-stream"


def client_config(endpoint_url: str | None) -> AioConfig:
    """How the S3 client talks to the server."""
    return AioConfig(
        connect_timeout=10,
        read_timeout=60,
        retries={"max_attempts": 4, "mode": "standard"},
        # Path-style addressing for custom endpoints (MinIO, moto, Ceph...), and checksums
        # only where S3 requires them: several S3-compatible servers reject the newer
        # default checksum headers.
        s3={"addressing_style": "path" if endpoint_url else "auto"},
        request_checksum_calculation="when_required",
        # Signature version 4 for presigned view URLs too (botocore may presign with the
        # deprecated version 2 otherwise, which newer regions refuse).
        signature_version="s3v4",
        response_checksum_validation="when_required",
    )


def error_code(exc: ClientError) -> str:
    return str(exc.response.get("Error", {}).get("Code", ""))


def _typed_error(exc: ClientError, what: str) -> NotFound | StorageUnavailable:
    code = error_code(exc)
    if code in MISSING_CODES:
        return NotFound(f"{what} does not exist.")
    if code == "NoSuchBucket":
        return StorageUnavailable("The storage bucket does not exist.")
    return StorageUnavailable(f"S3 refused the request ({code or 'unknown error'}).")


@contextlib.contextmanager
def translate(what: str) -> Iterator[None]:
    """Turn botocore and aiohttp errors into the storage's typed errors."""
    try:
        yield
    except ClientError as exc:
        raise _typed_error(exc, what) from exc
    except (BotoCoreError, aiohttp.ClientError, TimeoutError) as exc:
        raise StorageUnavailable(f"S3 could not be reached: {exc}") from exc


def content_type(name: str, stored: str | None) -> str | None:
    """An object's content type: the stored one, else the one its name implies."""
    if stored and stored != _S3_DEFAULT_TYPE:
        return stored
    return guess_content_type(name)


@dataclass(frozen=True, slots=True)
class Bucket:
    """A started S3 client, and the bucket and key prefix ('' or ending in '/') it works in."""

    client: Any
    name: str
    prefix: str

    def key(self, *segments: str) -> str:
        """The S3 key of a path of segments under the prefix."""
        return self.prefix + "/".join(segments)

    def at(self, key: str) -> dict[str, str]:
        """The Bucket and Key parameters of a request about S3 key key."""
        return {"Bucket": self.name, "Key": key}

    async def head(self, key: str, what: str) -> dict[str, Any]:
        """HeadObject of S3 key key; NotFound (of what) if absent."""
        with translate(what):
            head: dict[str, Any] = await self.client.head_object(**self.at(key))
        return head
