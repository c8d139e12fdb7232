"""The S3 backend's reads: an object's size and type (HeadObject), its bytes or a range of them
(GetObject, streamed), and presigned GetObject URLs for view delivery."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from datetime import datetime
from typing import Any

from botocore.exceptions import ClientError

from storage.base import FileInfo, ReadStream
from storage.s3_connection import Bucket, content_type, error_code, translate

_CONTENT_RANGE = re.compile(r"bytes \d+-\d+/(\d+)")
# The response headers a presigned GetObject may set, by their query parameter.
_RESPONSE_PARAMETERS = {
    "content-type": "ResponseContentType",
    "content-disposition": "ResponseContentDisposition",
    "cache-control": "ResponseCacheControl",
    "content-language": "ResponseContentLanguage",
    "expires": "ResponseExpires",
}


async def stat(bucket: Bucket, key: str, name: str) -> FileInfo:
    """What HeadObject tells of S3 key key (the content type guessed from name if not stored)."""
    head = await bucket.head(key, "The file")
    last_modified: datetime = head["LastModified"]
    return FileInfo(
        name=name,
        size=int(head["ContentLength"]),
        last_modified=last_modified,
        content_type=content_type(name, head.get("ContentType")),
    )


async def open_range(
    bucket: Bucket, key: str, name: str, offset: int, length: int | None, chunk_size: int
) -> ReadStream:
    """Stream S3 key key from offset, at most length bytes (None: to the end)."""
    if length == 0:
        info = await stat(bucket, key, name)
        return _empty(info.size, info.content_type)
    request: dict[str, Any] = bucket.at(key)
    if offset or length is not None:
        last = "" if length is None else str(offset + length - 1)
        request["Range"] = f"bytes={offset}-{last}"
    with translate("The file"):
        try:
            response = await bucket.client.get_object(**request)
        except ClientError as exc:
            if error_code(exc) != "InvalidRange":
                raise
            response = None  # the range starts at or past the end
    if response is None:
        info = await stat(bucket, key, name)
        return _empty(info.size, info.content_type)
    body = response["Body"]
    match = _CONTENT_RANGE.match(response.get("ContentRange") or "")
    size = int(match.group(1)) if match else int(response["ContentLength"])

    async def chunks() -> AsyncIterator[bytes]:
        while True:
            with translate("The file"):
                data: bytes = await body.read(chunk_size)
            if not data:
                return
            yield data

    return ReadStream(
        chunks(),
        length=int(response["ContentLength"]),
        size=size,
        content_type=content_type(name, response.get("ContentType")),
        on_close=body.aclose,
    )


async def presigned_url(
    bucket: Bucket, key: str, seconds: int, response_headers: dict[str, str]
) -> str:
    """A GetObject URL of S3 key key, valid for seconds, whose response carries
    response_headers (S3 sets them from the signed query)."""
    params: dict[str, Any] = bucket.at(key)
    for header, value in response_headers.items():
        params[_RESPONSE_PARAMETERS[header.lower()]] = value
    with translate("The file"):
        url: str = await bucket.client.generate_presigned_url(
            "get_object", Params=params, ExpiresIn=seconds
        )
    return url


def _empty(size: int, content_type: str | None) -> ReadStream:
    async def nothing() -> AsyncIterator[bytes]:
        return
        yield  # pragma: no cover - makes this an async generator

    return ReadStream(nothing(), length=0, size=size, content_type=content_type)
