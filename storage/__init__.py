"""File-storage backends behind one small async interface (local disk and S3).

`open_storage(settings.storage_url)` returns the backend; start it (or use `async with`).
"""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

from storage.base import (
    CHUNK_SIZE,
    FileInfo,
    InvalidName,
    InvalidStorageURL,
    NotFound,
    ReadStream,
    Storage,
    StorageError,
    StorageUnavailable,
    is_valid_name,
    validate_name,
)

__all__ = [
    "CHUNK_SIZE",
    "FileInfo",
    "InvalidName",
    "InvalidStorageURL",
    "NotFound",
    "ReadStream",
    "Storage",
    "StorageError",
    "StorageUnavailable",
    "is_valid_name",
    "open_storage",
    "validate_name",
]

_S3_PARAMETERS = {"endpoint_url", "region"}


def open_storage(url: str) -> Storage:
    """The backend a storage URL names (not started yet).

    `file://PATH` (relative like `file://var/storage`, or absolute like `file:///srv/files`),
    or `s3://BUCKET[/PREFIX][?endpoint_url=URL&region=REGION]`. Raises InvalidStorageURL.
    """
    if url.startswith("file://"):
        path = url.removeprefix("file://")
        if not path or "?" in path or "#" in path:
            raise InvalidStorageURL("A file:// storage URL needs a path and nothing else.")
        from storage.local import LocalStorage

        return LocalStorage(path)
    if url.startswith("s3://"):
        parts = urlsplit(url)
        if not parts.hostname or parts.username or parts.password or parts.port or parts.fragment:
            raise InvalidStorageURL("An s3:// storage URL is s3://BUCKET[/PREFIX][?...].")
        try:
            query = parse_qs(parts.query, keep_blank_values=True, strict_parsing=bool(parts.query))
        except ValueError:
            raise InvalidStorageURL("The s3:// storage URL has a malformed query.") from None
        unknown = sorted(set(query) - _S3_PARAMETERS)
        if unknown:
            raise InvalidStorageURL(
                f"Unknown s3:// storage URL parameter {unknown[0]!r}; "
                "allowed: endpoint_url, region."
            )
        if any(len(values) > 1 for values in query.values()):
            raise InvalidStorageURL("An s3:// storage URL parameter is given twice.")
        endpoint = query.get("endpoint_url", [""])[0] or None
        if endpoint is not None and not endpoint.startswith(("http://", "https://")):
            raise InvalidStorageURL("endpoint_url must start with http:// or https://.")
        from storage.s3 import S3Storage

        return S3Storage(
            parts.netloc,
            parts.path,
            endpoint_url=endpoint,
            region=query.get("region", [""])[0] or None,
        )
    scheme = url.split("://", 1)[0] if "://" in url else url
    raise InvalidStorageURL(
        f"Unsupported storage URL scheme {scheme[:20]!r}: use file://PATH or s3://BUCKET."
    )
