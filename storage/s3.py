"""S3 storage (aiobotocore): objects `{prefix}{container}/{folder}/{file}` in one bucket.

Writes are atomic: small streams are one PutObject, larger ones a multipart upload (one part
buffered at a time) that becomes visible only on CompleteMultipartUpload and is aborted on any
failure. Empty containers and folders are zero-byte marker keys ending in '/'. Credentials come
from the usual AWS environment variables (or any other source botocore knows).

The connection (client, bucket, errors) is in s3_connection.py, reads in s3_reads.py, writes
and copies in s3_writes.py, listings in s3_listing.py; this class puts them behind Storage.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AsyncExitStack
from dataclasses import replace
from typing import Any

from aiobotocore.session import get_session
from botocore.exceptions import ClientError

from storage import s3_listing, s3_reads, s3_writes
from storage.base import (
    CHUNK_SIZE,
    STAGING_DIR,
    FileInfo,
    NotFound,
    ObjectKey,
    ReadStream,
    Storage,
)
from storage.s3_connection import (
    COPY_LIMIT,
    MIN_PART_SIZE,
    MISSING_CODES,
    PART_SIZE,
    Bucket,
    client_config,
    content_type,
    error_code,
    translate,
)

__all__ = ["COPY_LIMIT", "MIN_PART_SIZE", "PART_SIZE", "S3Storage"]


class S3Storage(Storage):
    """Files as objects in an S3 bucket, under an optional key prefix."""

    def __init__(
        self,
        bucket: str,
        prefix: str = "",
        *,
        endpoint_url: str | None = None,
        region: str | None = None,
        part_size: int = PART_SIZE,
        chunk_size: int = CHUNK_SIZE,
        session: Any = None,
        copy_limit: int = COPY_LIMIT,
    ) -> None:
        """session: an aiobotocore session to share (it caches the parsed service model)."""
        if not bucket:
            raise ValueError("an S3 bucket name is required")
        if part_size < MIN_PART_SIZE:
            raise ValueError(f"part_size must be at least {MIN_PART_SIZE} bytes")
        self.bucket = bucket
        prefix = prefix.strip("/")
        self.prefix = f"{prefix}/" if prefix else ""
        self.endpoint_url = endpoint_url
        self.region = region
        self.part_size = part_size
        self.chunk_size = chunk_size
        self.copy_limit = copy_limit
        self._session = session
        self._stack: AsyncExitStack | None = None
        self._started: Bucket | None = None

    def __repr__(self) -> str:
        return f"S3Storage(bucket={self.bucket!r}, prefix={self.prefix!r})"

    async def start(self) -> None:
        """Open the S3 client (one per instance)."""
        if self._stack is not None:
            return
        stack = AsyncExitStack()
        client = (self._session or get_session()).create_client(
            "s3",
            endpoint_url=self.endpoint_url,
            region_name=self.region,
            config=client_config(self.endpoint_url),
        )
        with translate("The S3 client"):
            started = await stack.enter_async_context(client)
        self._started = Bucket(started, self.bucket, self.prefix)
        self._stack = stack

    async def close(self) -> None:
        """Close the S3 client."""
        stack, self._stack, self._started = self._stack, None, None
        if stack is not None:
            await stack.aclose()

    @property
    def _at(self) -> Bucket:
        if self._started is None:
            raise RuntimeError("S3Storage is not started: call start() or use 'async with'")
        return self._started

    def _key(self, *segments: str) -> str:
        return self.prefix + "/".join(segments)

    def _staged_key(self, key: str) -> str:
        return f"{self.prefix}{STAGING_DIR}/{key}"

    # Listings.

    async def _list_containers(self) -> list[str]:
        return await s3_listing.common_prefixes(self._at, self.prefix)

    async def _list_folders(self, container: str) -> list[str]:
        return await s3_listing.common_prefixes(self._at, self._key(container) + "/")

    async def _list_files(self, container: str, folder: str) -> list[FileInfo]:
        return await s3_listing.files(self._at, self._key(container, folder) + "/")

    async def _list_staged(self) -> list[FileInfo]:
        return await s3_listing.staged(self._at, self._staged_key(""))

    async def _walk(self, prefix: ObjectKey | None) -> AsyncIterator[FileInfo]:
        start = self._key(*prefix.segments) + "/" if prefix else self.prefix
        async for info in s3_listing.walk(self._at, start, self._staged_key("")):
            yield info

    # Reads.

    async def _stat_object(self, key: ObjectKey) -> FileInfo:
        info = await s3_reads.stat(self._at, self._key(*key.segments), key.name)
        return replace(info, name=key.path)

    async def _open_object(
        self, key: ObjectKey, offset: int, length: int | None, chunk_size: int
    ) -> ReadStream:
        full = self._key(*key.segments)
        return await s3_reads.open_range(self._at, full, key.name, offset, length, chunk_size)

    async def presigned_get(
        self, key: ObjectKey, *, seconds: int, response_headers: dict[str, str]
    ) -> str:
        """A presigned GetObject URL whose response carries response_headers (S3 sets
        Content-Type, Content-Disposition, Cache-Control... from the signed query)."""
        full = self._key(*key.segments)
        return await s3_reads.presigned_url(self._at, full, seconds, response_headers)

    async def _open_staged(
        self, key: str, offset: int, length: int | None, chunk_size: int
    ) -> ReadStream:
        full = self._staged_key(key)
        return await s3_reads.open_range(self._at, full, key, offset, length, chunk_size)

    async def _stat_staged(self, key: str) -> FileInfo:
        head = await self._at.head(self._staged_key(key), "The staged file")
        return FileInfo(
            name=key,
            size=int(head["ContentLength"]),
            last_modified=head["LastModified"],
            content_type=content_type(key, head.get("ContentType")),
        )

    # Writes, copies and deletes.

    async def _write_object(
        self, key: ObjectKey, chunks: AsyncIterator[bytes], content_type: str | None
    ) -> int:
        full = self._key(*key.segments)
        return await s3_writes.write(self._at, full, chunks, content_type, self.part_size)

    async def _write_file(
        self, key: ObjectKey, chunks: AsyncIterator[bytes], content_type: str | None
    ) -> int:
        await self._create_folder(*key.segments[:2])
        return await self._write_object(key, chunks, content_type)

    async def _write_staged(
        self, key: str, chunks: AsyncIterator[bytes], content_type: str | None
    ) -> int:
        full = self._staged_key(key)
        return await s3_writes.write(self._at, full, chunks, content_type, self.part_size)

    async def _publish_staged(self, key: str, target: ObjectKey) -> None:
        # S3 has no rename: a server-side copy (the content type goes with it), then the staged
        # object is deleted. The file appears whole when the copy completes.
        size = (await self._stat_staged(key)).size
        await self._create_folder(*target.segments[:2])
        source, at = self._staged_key(key), self._at
        with translate("The staged file"):
            await s3_writes.copy(
                at, source, self._key(*target.segments), size, self.copy_limit, self.part_size
            )
            await at.client.delete_object(**at.at(source))

    async def _copy_object(self, source: ObjectKey, target: ObjectKey) -> None:
        source_key, at = self._key(*source.segments), self._at
        with translate("The file"):
            head = await at.client.head_object(**at.at(source_key))
            await s3_writes.copy(
                at,
                source_key,
                self._key(*target.segments),
                int(head["ContentLength"]),
                self.copy_limit,
                self.part_size,
            )

    async def _delete_object(self, key: ObjectKey) -> bool:
        full, at = self._key(*key.segments), self._at
        try:
            await at.head(full, "The file")  # DeleteObject never says it was absent
        except NotFound:
            return False
        with translate("The file"):
            await at.client.delete_object(**at.at(full))
        return True

    async def _delete_staged(self, key: str) -> bool:
        full, at = self._staged_key(key), self._at
        with translate("The staged file"):
            # A write that died mid-stream leaves an unfinished multipart upload, not an object.
            uploads = await at.client.list_multipart_uploads(Bucket=self.bucket, Prefix=full)
            for upload in uploads.get("Uploads", []):
                if upload["Key"] == full:
                    await s3_writes.abort(at, full, upload["UploadId"])
            try:
                await at.client.head_object(**at.at(full))
            except ClientError as exc:
                if error_code(exc) in MISSING_CODES:
                    return False
                raise
            await at.client.delete_object(**at.at(full))
        return True

    async def _put_marker(self, key: str) -> None:
        with translate("The folder"):
            await self._at.client.put_object(**self._at.at(key), Body=b"")

    async def _create_container(self, container: str) -> None:
        await self._put_marker(self._key(container) + "/")

    async def _create_folder(self, container: str, folder: str) -> None:
        # The folder's marker alone makes the container appear in listings too.
        await self._put_marker(self._key(container, folder) + "/")
