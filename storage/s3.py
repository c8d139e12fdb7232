"""S3 storage (aiobotocore): objects `{prefix}{container}/{folder}/{file}` in one bucket.

Writes are atomic: small streams are one PutObject, larger ones a multipart upload (one part
buffered at a time) that becomes visible only on CompleteMultipartUpload and is aborted on any
failure. Empty containers and folders are zero-byte marker keys ending in '/'. Credentials come
from the usual AWS environment variables (or any other source botocore knows).
"""

from __future__ import annotations

import contextlib
import io
import logging
import re
from collections.abc import AsyncIterator, Iterator
from contextlib import AsyncExitStack
from datetime import datetime
from typing import Any

import aiohttp
from aiobotocore.config import AioConfig
from aiobotocore.session import get_session
from botocore.exceptions import BotoCoreError, ClientError

from storage.base import (
    CHUNK_SIZE,
    STAGING_DIR,
    FileInfo,
    NotFound,
    ObjectKey,
    ReadStream,
    Storage,
    StorageUnavailable,
    guess_content_type,
    is_temp_name,
    is_valid_name,
    is_valid_segment,
)

log = logging.getLogger(__name__)

MIN_PART_SIZE = 5 * 1024 * 1024  # S3's minimum for every part but the last
COPY_LIMIT = 5 * 1024 * 1024 * 1024  # the largest object one CopyObject may copy
PART_SIZE = 8 * 1024 * 1024
_MISSING_CODES = {"NoSuchKey", "404", "NotFound"}
_CONTENT_RANGE = re.compile(r"bytes \d+-\d+/(\d+)")
# What S3 reports for an object stored without a content type: treat it as unknown.
_S3_DEFAULT_TYPE = "binary/octet-stream"
# The response headers a presigned GetObject may set, by their query parameter.
_RESPONSE_PARAMETERS = {
    "content-type": "ResponseContentType",
    "content-disposition": "ResponseContentDisposition",
    "cache-control": "ResponseCacheControl",
    "content-language": "ResponseContentLanguage",
    "expires": "ResponseExpires",
}


def _error_code(exc: ClientError) -> str:
    return str(exc.response.get("Error", {}).get("Code", ""))


def _typed_error(exc: ClientError, what: str) -> NotFound | StorageUnavailable:
    code = _error_code(exc)
    if code in _MISSING_CODES:
        return NotFound(f"{what} does not exist.")
    if code == "NoSuchBucket":
        return StorageUnavailable("The storage bucket does not exist.")
    return StorageUnavailable(f"S3 refused the request ({code or 'unknown error'}).")


@contextlib.contextmanager
def _translate(what: str) -> Iterator[None]:
    """Turn botocore and aiohttp errors into the storage's typed errors."""
    try:
        yield
    except ClientError as exc:
        raise _typed_error(exc, what) from exc
    except (BotoCoreError, aiohttp.ClientError, TimeoutError) as exc:
        raise StorageUnavailable(f"S3 could not be reached: {exc}") from exc


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
        self._s3: Any = None

    def __repr__(self) -> str:
        return f"S3Storage(bucket={self.bucket!r}, prefix={self.prefix!r})"

    async def start(self) -> None:
        """Open the S3 client (one per instance)."""
        if self._stack is not None:
            return
        config = AioConfig(
            connect_timeout=10,
            read_timeout=60,
            retries={"max_attempts": 4, "mode": "standard"},
            # Path-style addressing for custom endpoints (MinIO, moto, Ceph...), and checksums
            # only where S3 requires them: several S3-compatible servers reject the newer
            # default checksum headers.
            s3={"addressing_style": "path" if self.endpoint_url else "auto"},
            request_checksum_calculation="when_required",
            # Signature version 4 for presigned view URLs too (botocore may presign with the
            # deprecated version 2 otherwise, which newer regions refuse).
            signature_version="s3v4",
            response_checksum_validation="when_required",
        )
        stack = AsyncExitStack()
        client = (self._session or get_session()).create_client(
            "s3", endpoint_url=self.endpoint_url, region_name=self.region, config=config
        )
        with _translate("The S3 client"):
            self._s3 = await stack.enter_async_context(client)
        self._stack = stack

    async def close(self) -> None:
        """Close the S3 client."""
        stack, self._stack, self._s3 = self._stack, None, None
        if stack is not None:
            await stack.aclose()

    @property
    def _client(self) -> Any:
        if self._s3 is None:
            raise RuntimeError("S3Storage is not started: call start() or use 'async with'")
        return self._s3

    def _key(self, *segments: str) -> str:
        return self.prefix + "/".join(segments)

    async def _common_prefixes(self, prefix: str) -> list[str]:
        names = []
        paginator = self._client.get_paginator("list_objects_v2")
        with _translate("The listing"):
            async for page in paginator.paginate(Bucket=self.bucket, Prefix=prefix, Delimiter="/"):
                for entry in page.get("CommonPrefixes", []):
                    name = entry["Prefix"][len(prefix) :].removesuffix("/")
                    if is_valid_name(name):
                        names.append(name)
        return names

    async def _list_containers(self) -> list[str]:
        return await self._common_prefixes(self.prefix)

    async def _list_folders(self, container: str) -> list[str]:
        return await self._common_prefixes(self._key(container) + "/")

    async def _list_files(self, container: str, folder: str) -> list[FileInfo]:
        prefix = self._key(container, folder) + "/"
        infos = []
        paginator = self._client.get_paginator("list_objects_v2")
        with _translate("The folder"):
            async for page in paginator.paginate(Bucket=self.bucket, Prefix=prefix, Delimiter="/"):
                for entry in page.get("Contents", []):
                    name = entry["Key"][len(prefix) :]
                    if not is_valid_name(name) or is_temp_name(name):  # also skips the marker
                        continue
                    infos.append(
                        FileInfo(
                            name=name,
                            size=int(entry["Size"]),
                            last_modified=entry["LastModified"],
                            content_type=guess_content_type(name),
                        )
                    )
        return infos

    async def presigned_get(
        self, key: ObjectKey, *, seconds: int, response_headers: dict[str, str]
    ) -> str:
        """A presigned GetObject URL whose response carries response_headers (S3 sets
        Content-Type, Content-Disposition, Cache-Control... from the signed query)."""
        params: dict[str, Any] = {"Bucket": self.bucket, "Key": self._key(*key.segments)}
        for header, value in response_headers.items():
            params[_RESPONSE_PARAMETERS[header.lower()]] = value
        with _translate("The file"):
            url: str = await self._client.generate_presigned_url(
                "get_object", Params=params, ExpiresIn=seconds
            )
        return url

    async def _head(self, container: str, folder: str, name: str) -> dict[str, Any]:
        return await self._head_key(self._key(container, folder, name), "The file")

    async def _head_key(self, key: str, what: str) -> dict[str, Any]:
        with _translate(what):
            head: dict[str, Any] = await self._client.head_object(Bucket=self.bucket, Key=key)
        return head

    @staticmethod
    def _content_type(name: str, stored: str | None) -> str | None:
        if stored and stored != _S3_DEFAULT_TYPE:
            return stored
        return guess_content_type(name)

    async def _stat(self, container: str, folder: str, name: str) -> FileInfo:
        return await self._stat_key(self._key(container, folder, name), name)

    async def _stat_key(self, key: str, name: str) -> FileInfo:
        head = await self._head_key(key, "The file")
        last_modified: datetime = head["LastModified"]
        return FileInfo(
            name=name,
            size=int(head["ContentLength"]),
            last_modified=last_modified,
            content_type=self._content_type(name, head.get("ContentType")),
        )

    async def _open(
        self,
        container: str,
        folder: str,
        name: str,
        offset: int,
        length: int | None,
        chunk_size: int,
    ) -> ReadStream:
        return await self._open_key(
            self._key(container, folder, name), name, offset, length, chunk_size
        )

    async def _open_key(
        self, key: str, name: str, offset: int, length: int | None, chunk_size: int
    ) -> ReadStream:
        if length == 0:
            info = await self._stat_key(key, name)
            return _empty(info.size, info.content_type)
        request: dict[str, Any] = {"Bucket": self.bucket, "Key": key}
        if offset or length is not None:
            last = "" if length is None else str(offset + length - 1)
            request["Range"] = f"bytes={offset}-{last}"
        with _translate("The file"):
            try:
                response = await self._client.get_object(**request)
            except ClientError as exc:
                if _error_code(exc) != "InvalidRange":
                    raise
                response = None  # the range starts at or past the end
        if response is None:
            info = await self._stat_key(key, name)
            return _empty(info.size, info.content_type)
        body = response["Body"]
        match = _CONTENT_RANGE.match(response.get("ContentRange") or "")
        size = int(match.group(1)) if match else int(response["ContentLength"])

        async def chunks() -> AsyncIterator[bytes]:
            while True:
                with _translate("The file"):
                    data: bytes = await body.read(chunk_size)
                if not data:
                    return
                yield data

        return ReadStream(
            chunks(),
            length=int(response["ContentLength"]),
            size=size,
            content_type=self._content_type(name, response.get("ContentType")),
            on_close=body.aclose,
        )

    async def _write(
        self,
        container: str,
        folder: str,
        name: str,
        chunks: AsyncIterator[bytes],
        content_type: str | None,
    ) -> int:
        await self._create_folder(container, folder)
        return await self._write_key(self._key(container, folder, name), chunks, content_type)

    async def _write_key(
        self, key: str, chunks: AsyncIterator[bytes], content_type: str | None
    ) -> int:
        target = {"Bucket": self.bucket, "Key": key}
        extra = {"ContentType": content_type} if content_type else {}
        part_size = self.part_size
        # One part at a time, in a BytesIO: aiohttp sends that in small pieces, yielding to the
        # event loop, where a multi-megabyte bytes body would stall it.
        part: io.BytesIO | None = None
        size = 0
        upload_id: str | None = None
        parts: list[dict[str, Any]] = []

        async def send_part(body: io.BytesIO) -> None:
            nonlocal upload_id
            body.seek(0)
            with _translate("The upload"):
                if upload_id is None:
                    created = await self._client.create_multipart_upload(**target, **extra)
                    upload_id = str(created["UploadId"])
                number = len(parts) + 1
                sent = await self._client.upload_part(
                    **target, UploadId=upload_id, PartNumber=number, Body=body
                )
            parts.append({"ETag": sent["ETag"], "PartNumber": number})

        try:
            async for chunk in chunks:  # errors of the source propagate untranslated
                size += len(chunk)
                view = memoryview(chunk)
                while view:
                    if part is None:
                        part = io.BytesIO()
                    take = min(len(view), part_size - part.tell())
                    part.write(view[:take])
                    view = view[take:]
                    if part.tell() == part_size:
                        full, part = part, None
                        await send_part(full)
                        full.close()
            if upload_id is None:
                if part is not None:
                    part.seek(0)
                with _translate("The upload"):
                    await self._client.put_object(**target, Body=part or b"", **extra)
                return size
            if part is not None:
                await send_part(part)
            with _translate("The upload"):
                await self._client.complete_multipart_upload(
                    **target, UploadId=upload_id, MultipartUpload={"Parts": parts}
                )
        except BaseException:
            if upload_id is not None:
                await self._abort(key, upload_id)
            raise
        return size

    async def _abort(self, key: str, upload_id: str) -> None:
        # Best effort: a bucket lifecycle rule for incomplete multipart uploads should back this
        # up, for a process that dies before it gets here.
        try:
            await self._client.abort_multipart_upload(
                Bucket=self.bucket, Key=key, UploadId=upload_id
            )
        except (ClientError, BotoCoreError, aiohttp.ClientError, TimeoutError):
            log.warning("Could not abort a multipart upload; a lifecycle rule must clean it up.")

    async def _delete(self, container: str, folder: str, name: str) -> None:
        await self._head(container, folder, name)  # NotFound if absent: DeleteObject never says
        with _translate("The file"):
            await self._client.delete_object(
                Bucket=self.bucket, Key=self._key(container, folder, name)
            )

    def _staged_key(self, key: str) -> str:
        return f"{self.prefix}{STAGING_DIR}/{key}"

    async def _write_staged(
        self, key: str, chunks: AsyncIterator[bytes], content_type: str | None
    ) -> int:
        return await self._write_key(self._staged_key(key), chunks, content_type)

    async def _stat_staged(self, key: str) -> FileInfo:
        with _translate("The staged file"):
            head = await self._client.head_object(Bucket=self.bucket, Key=self._staged_key(key))
        return FileInfo(
            name=key,
            size=int(head["ContentLength"]),
            last_modified=head["LastModified"],
            content_type=self._content_type(key, head.get("ContentType")),
        )

    async def _publish_staged(self, key: str, container: str, folder: str, name: str) -> None:
        # S3 has no rename: a server-side copy (the content type goes with it), then the staged
        # object is deleted. The file appears whole when the copy completes.
        size = (await self._stat_staged(key)).size
        await self._create_folder(container, folder)
        source = {"Bucket": self.bucket, "Key": self._staged_key(key)}
        target = {"Bucket": self.bucket, "Key": self._key(container, folder, name)}
        with _translate("The staged file"):
            if size <= self.copy_limit:
                await self._client.copy_object(**target, CopySource=source)
            else:
                await self._copy_in_parts(source, target, size)
            await self._client.delete_object(**source)

    async def _copy_in_parts(
        self, source: dict[str, str], target: dict[str, str], size: int
    ) -> None:
        """Copy an object too large for one CopyObject (a multipart upload of copied ranges)."""
        head = await self._client.head_object(**source)
        extra = {"ContentType": head["ContentType"]} if head.get("ContentType") else {}
        created = await self._client.create_multipart_upload(**target, **extra)
        upload_id = str(created["UploadId"])
        try:
            parts = []
            for number, start in enumerate(range(0, size, self.part_size), 1):
                last = min(size, start + self.part_size) - 1
                copied = await self._client.upload_part_copy(
                    **target,
                    UploadId=upload_id,
                    PartNumber=number,
                    CopySource=source,
                    CopySourceRange=f"bytes={start}-{last}",
                )
                parts.append({"ETag": copied["CopyPartResult"]["ETag"], "PartNumber": number})
            await self._client.complete_multipart_upload(
                **target, UploadId=upload_id, MultipartUpload={"Parts": parts}
            )
        except BaseException:
            await self._abort(target["Key"], upload_id)
            raise

    async def _delete_staged(self, key: str) -> bool:
        full = self._staged_key(key)
        with _translate("The staged file"):
            # A write that died mid-stream leaves an unfinished multipart upload, not an object.
            uploads = await self._client.list_multipart_uploads(Bucket=self.bucket, Prefix=full)
            for upload in uploads.get("Uploads", []):
                if upload["Key"] == full:
                    await self._abort(full, upload["UploadId"])
            try:
                await self._client.head_object(Bucket=self.bucket, Key=full)
            except ClientError as exc:
                if _error_code(exc) in _MISSING_CODES:
                    return False
                raise
            await self._client.delete_object(Bucket=self.bucket, Key=full)
        return True

    async def _list_staged(self) -> list[FileInfo]:
        prefix = self._staged_key("")
        infos = []
        paginator = self._client.get_paginator("list_objects_v2")
        with _translate("The staging folder"):
            async for page in paginator.paginate(Bucket=self.bucket, Prefix=prefix):
                for entry in page.get("Contents", []):
                    name = entry["Key"][len(prefix) :]
                    if "/" not in name and name:
                        infos.append(
                            FileInfo(
                                name=name,
                                size=int(entry["Size"]),
                                last_modified=entry["LastModified"],
                                content_type=None,
                            )
                        )
        return infos

    async def _walk(self, prefix: tuple[str, ...]) -> AsyncIterator[FileInfo]:
        start = self._key(*prefix) + "/" if prefix else self.prefix
        staging = self._staged_key("")
        paginator = self._client.get_paginator("list_objects_v2")
        with _translate("The listing"):
            async for page in paginator.paginate(Bucket=self.bucket, Prefix=start):
                for entry in page.get("Contents", []):
                    full: str = entry["Key"]
                    key = full[len(self.prefix) :]
                    # Folder markers end in '/', so they fail the segment check as well.
                    if full.startswith(staging) or not all(
                        is_valid_segment(s) for s in key.split("/")
                    ):
                        continue
                    yield FileInfo(
                        name=key,
                        size=int(entry["Size"]),
                        last_modified=entry["LastModified"],
                        content_type=guess_content_type(key),
                    )

    async def _open_object(
        self, key: tuple[str, ...], offset: int, length: int | None, chunk_size: int
    ) -> ReadStream:
        return await self._open_key(self._key(*key), key[-1], offset, length, chunk_size)

    async def _stat_object(self, key: tuple[str, ...]) -> FileInfo:
        info = await self._stat_key(self._key(*key), key[-1])
        return FileInfo(
            name="/".join(key),
            size=info.size,
            last_modified=info.last_modified,
            content_type=info.content_type,
        )

    async def _write_object(
        self, key: tuple[str, ...], chunks: AsyncIterator[bytes], content_type: str | None
    ) -> int:
        return await self._write_key(self._key(*key), chunks, content_type)

    async def _delete_object(self, key: tuple[str, ...]) -> bool:
        try:
            await self._head_key(self._key(*key), "The object")
        except NotFound:
            return False
        with _translate("The object"):
            await self._client.delete_object(Bucket=self.bucket, Key=self._key(*key))
        return True

    async def _copy(self, container: str, folder: str, source: str, target: str) -> None:
        source_key = {"Bucket": self.bucket, "Key": self._key(container, folder, source)}
        target_key = {"Bucket": self.bucket, "Key": self._key(container, folder, target)}
        with _translate("The file"):
            head = await self._client.head_object(**source_key)
            size = int(head["ContentLength"])
            if size <= self.copy_limit:
                await self._client.copy_object(**target_key, CopySource=source_key)
            else:
                await self._copy_in_parts(source_key, target_key, size)

    async def _list_tree(
        self, container: str, folder: str, prefix: str
    ) -> list[tuple[tuple[str, ...], FileInfo]]:
        base = self._key(container, folder) + "/"
        found = []
        paginator = self._client.get_paginator("list_objects_v2")
        with _translate("The folder"):
            async for page in paginator.paginate(Bucket=self.bucket, Prefix=f"{base}{prefix}/"):
                for entry in page.get("Contents", []):
                    path = tuple(entry["Key"][len(base) :].split("/"))
                    if not path[-1] or is_temp_name(path[-1]):  # a folder marker
                        continue
                    info = FileInfo(
                        name=path[-1],
                        size=int(entry["Size"]),
                        last_modified=entry["LastModified"],
                        content_type=None,
                    )
                    found.append((path, info))
        return found

    async def _put_marker(self, key: str) -> None:
        with _translate("The folder"):
            await self._client.put_object(Bucket=self.bucket, Key=key, Body=b"")

    async def _create_container(self, container: str) -> None:
        await self._put_marker(self._key(container) + "/")

    async def _create_folder(self, container: str, folder: str) -> None:
        # The folder's marker alone makes the container appear in listings too.
        await self._put_marker(self._key(container, folder) + "/")


def _empty(size: int, content_type: str | None) -> ReadStream:
    async def nothing() -> AsyncIterator[bytes]:
        return
        yield  # pragma: no cover - makes this an async generator

    return ReadStream(nothing(), length=0, size=size, content_type=content_type)
