"""The S3 backend's listings: containers and folders (common prefixes), a folder's files, the
staging area, and every object under a prefix (walk). One listing page at a time."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from storage.base import FileInfo, guess_content_type, is_temp_name, is_valid_name, is_valid_segment
from storage.s3_connection import Bucket, translate


def _pages(bucket: Bucket, prefix: str, **more: str) -> AsyncIterator[dict[str, Any]]:
    paginator = bucket.client.get_paginator("list_objects_v2")
    pages: AsyncIterator[dict[str, Any]] = paginator.paginate(
        Bucket=bucket.name, Prefix=prefix, **more
    )
    return pages


def _info(name: str, entry: dict[str, Any], content_type: str | None) -> FileInfo:
    return FileInfo(
        name=name,
        size=int(entry["Size"]),
        last_modified=entry["LastModified"],
        content_type=content_type,
    )


async def common_prefixes(bucket: Bucket, prefix: str) -> list[str]:
    """The valid names one level below S3 prefix prefix (containers, or a container's folders)."""
    names = []
    with translate("The listing"):
        async for page in _pages(bucket, prefix, Delimiter="/"):
            for entry in page.get("CommonPrefixes", []):
                name = entry["Prefix"][len(prefix) :].removesuffix("/")
                if is_valid_name(name):
                    names.append(name)
    return names


async def files(bucket: Bucket, prefix: str) -> list[FileInfo]:
    """The files right under S3 prefix prefix (a folder's), by their names."""
    infos = []
    with translate("The folder"):
        async for page in _pages(bucket, prefix, Delimiter="/"):
            for entry in page.get("Contents", []):
                name = entry["Key"][len(prefix) :]
                if not is_valid_name(name) or is_temp_name(name):  # also skips the marker
                    continue
                infos.append(_info(name, entry, guess_content_type(name)))
    return infos


async def staged(bucket: Bucket, prefix: str) -> list[FileInfo]:
    """The staged objects under S3 prefix prefix (the staging area's), by their keys."""
    infos = []
    with translate("The staging folder"):
        async for page in _pages(bucket, prefix):
            for entry in page.get("Contents", []):
                name = entry["Key"][len(prefix) :]
                if "/" not in name and name:
                    infos.append(_info(name, entry, None))
    return infos


async def walk(bucket: Bucket, start: str, staging: str) -> AsyncIterator[FileInfo]:
    """Every object under S3 prefix start, named by its key's text form; staging's, folder
    markers and keys with a segment no key may hold left out."""
    with translate("The listing"):
        async for page in _pages(bucket, start):
            for entry in page.get("Contents", []):
                full: str = entry["Key"]
                key = full[len(bucket.prefix) :]
                # Folder markers end in '/', so they fail the segment check as well.
                if full.startswith(staging) or not all(is_valid_segment(s) for s in key.split("/")):
                    continue
                yield _info(key, entry, guess_content_type(key))
