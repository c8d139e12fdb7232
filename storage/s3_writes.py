"""The S3 backend's writes: a stream stored atomically (one PutObject, or a multipart upload
that becomes visible only when completed and is aborted on any failure), and server-side
copies (one CopyObject, or a multipart copy of ranges past S3's 5 GiB limit)."""

from __future__ import annotations

import io
import logging
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
from botocore.exceptions import BotoCoreError, ClientError

from storage.s3_connection import Bucket, translate

log = logging.getLogger("storage.s3")


async def write(
    bucket: Bucket,
    key: str,
    chunks: AsyncIterator[bytes],
    content_type: str | None,
    part_size: int,
) -> int:
    """Store chunks as S3 key key, all or nothing; the size."""
    target = bucket.at(key)
    extra = {"ContentType": content_type} if content_type else {}
    client = bucket.client
    # One part at a time, in a BytesIO: aiohttp sends that in small pieces, yielding to the
    # event loop, where a multi-megabyte bytes body would stall it.
    part: io.BytesIO | None = None
    size = 0
    upload_id: str | None = None
    parts: list[dict[str, Any]] = []

    async def send_part(body: io.BytesIO) -> None:
        nonlocal upload_id
        body.seek(0)
        with translate("The upload"):
            if upload_id is None:
                created = await client.create_multipart_upload(**target, **extra)
                upload_id = str(created["UploadId"])
            number = len(parts) + 1
            sent = await client.upload_part(
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
            with translate("The upload"):
                await client.put_object(**target, Body=part or b"", **extra)
            return size
        if part is not None:
            await send_part(part)
        with translate("The upload"):
            await client.complete_multipart_upload(
                **target, UploadId=upload_id, MultipartUpload={"Parts": parts}
            )
    except BaseException:
        if upload_id is not None:
            await abort(bucket, key, upload_id)
        raise
    return size


async def abort(bucket: Bucket, key: str, upload_id: str) -> None:
    """Abort an unfinished multipart upload of S3 key key, best effort."""
    # A bucket lifecycle rule for incomplete multipart uploads should back this up, for a
    # process that dies before it gets here.
    try:
        await bucket.client.abort_multipart_upload(**bucket.at(key), UploadId=upload_id)
    except (ClientError, BotoCoreError, aiohttp.ClientError, TimeoutError):
        log.warning("Could not abort a multipart upload; a lifecycle rule must clean it up.")


async def copy(
    bucket: Bucket, source: str, target: str, size: int, copy_limit: int, part_size: int
) -> None:
    """Copy S3 key source (of size bytes) to target server-side, its content type with it.
    Errors are the client's: the caller translates them."""
    if size <= copy_limit:
        await bucket.client.copy_object(**bucket.at(target), CopySource=bucket.at(source))
    else:
        await _copy_in_parts(bucket, bucket.at(source), bucket.at(target), size, part_size)


async def _copy_in_parts(
    bucket: Bucket, source: dict[str, str], target: dict[str, str], size: int, part_size: int
) -> None:
    """Copy an object too large for one CopyObject (a multipart upload of copied ranges)."""
    client = bucket.client
    head = await client.head_object(**source)
    extra = {"ContentType": head["ContentType"]} if head.get("ContentType") else {}
    created = await client.create_multipart_upload(**target, **extra)
    upload_id = str(created["UploadId"])
    try:
        parts = []
        for number, start in enumerate(range(0, size, part_size), 1):
            last = min(size, start + part_size) - 1
            copied = await client.upload_part_copy(
                **target,
                UploadId=upload_id,
                PartNumber=number,
                CopySource=source,
                CopySourceRange=f"bytes={start}-{last}",
            )
            parts.append({"ETag": copied["CopyPartResult"]["ETag"], "PartNumber": number})
        await client.complete_multipart_upload(
            **target, UploadId=upload_id, MultipartUpload={"Parts": parts}
        )
    except BaseException:
        await abort(bucket, target["Key"], upload_id)
        raise
