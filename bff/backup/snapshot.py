"""Where a snapshot lives and how its parts are written and read, each with its SHA-256.

A snapshot is a local directory or an S3 prefix (`s3://BUCKET/PREFIX?endpoint_url=...`, the
storage URL syntax), holding (every file but the manifest age-encrypted: bff/backup/crypto.py):

    manifest.json                  written last: what the snapshot holds, every part's SHA-256,
                                   sealed with an HMAC under the backup key
    database/<table>.jsonl.gz.age  one table's rows (first line: its columns and their types)
    objects.jsonl.gz.age           every stored object: key, size, sha256, content type, and
                                   the name it is kept under in the snapshot
    objects/<xx>/<name>            the objects' bytes, under names that tell nothing of theirs

A local snapshot is written into a hidden sibling folder and renamed to its name only once the
manifest is in it; an S3 one has a manifest only once complete. A restore refuses a snapshot
without a valid manifest, so a backup killed at any point leaves nothing it would accept.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import secrets
import shutil
from collections.abc import AsyncIterable, AsyncIterator, Iterable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from bff.backup.crypto import authentic, key_id, seal
from storage import open_storage
from storage.base import ObjectKey, Storage
from storage.local import LocalStorage

MANIFEST = "manifest.json"
OBJECT_LIST = "objects.jsonl.gz.age"
FORMAT = "bff-snapshot/2"  # parts and objects age-encrypted, the manifest HMAC-sealed
LEGACY_FORMAT = "bff-snapshot/1"  # plain parts, the manifest sealed with a bare SHA-256


class SnapshotError(Exception):
    """A snapshot cannot be written or read (the message says why)."""


class Hashed:
    """Passes chunks through, counting their bytes and their SHA-256."""

    def __init__(self, chunks: AsyncIterable[bytes]) -> None:
        self.chunks = chunks
        self.sha = hashlib.sha256()
        self.size = 0

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self.chunks:
            self.sha.update(chunk)
            self.size += len(chunk)
            yield chunk

    @property
    def digest(self) -> str:
        return self.sha.hexdigest()


async def gzip_lines(lines: AsyncIterable[Any], level: int = 6) -> AsyncIterator[bytes]:
    """JSON lines of the values, gzip-compressed, in chunks (never the whole part in memory)."""
    buffer = _Sink()
    with gzip.GzipFile(fileobj=buffer, mode="wb", compresslevel=level, mtime=0) as out:
        async for line in lines:
            out.write(json.dumps(line, separators=(",", ":"), ensure_ascii=False).encode())
            out.write(b"\n")
            if buffer.size() >= 256 * 1024:
                yield buffer.take()
    yield buffer.take()


class _Sink:
    def __init__(self) -> None:
        self.parts: list[bytes] = []

    def write(self, data: bytes) -> int:
        self.parts.append(bytes(data))
        return len(data)

    def flush(self) -> None:
        pass

    def size(self) -> int:
        return sum(map(len, self.parts))

    def take(self) -> bytes:
        data, self.parts = b"".join(self.parts), []
        return data


async def read_lines(chunks: AsyncIterable[bytes]) -> AsyncIterator[Any]:
    """The JSON lines of a gzip-compressed part, decoded as the chunks arrive."""
    import zlib

    inflate = zlib.decompressobj(16 + zlib.MAX_WBITS)
    rest = b""
    async for chunk in chunks:
        rest += inflate.decompress(chunk)
        *lines, rest = rest.split(b"\n")
        for line in lines:
            yield json.loads(line)
    rest += inflate.flush()
    if not inflate.eof:
        raise SnapshotError("A part of the snapshot is cut short.")
    for line in rest.split(b"\n"):
        if line:
            yield json.loads(line)


def manifest_bytes(manifest: dict[str, Any], mac_key: bytes) -> bytes:
    """The manifest file: the manifest and its HMAC-SHA256 under the backup key."""
    return json.dumps(seal(manifest, mac_key), indent=2, sort_keys=True).encode() + b"\n"


async def read_manifest(snapshot: Storage, mac_key: bytes) -> dict[str, Any]:
    """The snapshot's manifest, authenticated with the backup key; SnapshotError otherwise."""
    from storage.base import NotFound

    try:
        stream = await snapshot.open_object(ObjectKey.parse(MANIFEST))
    except NotFound:
        raise SnapshotError(
            "No manifest: this is not a snapshot, or its backup did not finish."
        ) from None
    async with stream:
        if stream.size > 64 * 1024 * 1024:
            raise SnapshotError("The manifest is too large.")
        raw = await stream.read_all()
    try:
        sealed = json.loads(raw)
        manifest: dict[str, Any] = sealed["manifest"]
        fmt = manifest.get("format")
    except (ValueError, KeyError, TypeError, AttributeError):
        raise SnapshotError("The manifest is not a snapshot manifest.") from None
    if fmt == LEGACY_FORMAT:
        raise SnapshotError(
            f"This snapshot ({LEGACY_FORMAT}, product version {manifest.get('productVersion')}) "
            "was written before snapshots were encrypted and authenticated: nothing shows it "
            "is unchanged, so it is refused. Restore it with the version that wrote it, check "
            "the result, then take a new backup."
        )
    try:
        valid = authentic(sealed, mac_key)
    except (KeyError, TypeError):
        valid = False
    if not valid:
        other = sealed.get("keyId") != key_id(mac_key)
        raise SnapshotError(
            "The manifest is not authentic: "
            + (
                f"it was written with another backup key (key id {sealed.get('keyId')}, this "
                f"deployment's is {key_id(mac_key)}): set BFF_BACKUP_KEY to the key of the "
                "deployment that wrote it."
                if other
                else "it was changed after the backup (its HMAC does not match)."
            )
        )
    if fmt != FORMAT:
        raise SnapshotError(f"Unknown snapshot format {fmt!r}.")
    return manifest


def _is_url(location: str) -> bool:
    return location.startswith(("s3://", "file://"))


def _local_path(location: str) -> Path:
    return Path(location.removeprefix("file://")).expanduser().absolute()


async def _empty(storage: Storage) -> bool:
    async for _ in storage.walk():
        return False
    return True


@asynccontextmanager
async def new_snapshot(location: str) -> AsyncIterator[Storage]:
    """A storage to write a new snapshot into; it becomes the snapshot at `location` only if
    the block ends without an error (local: renamed into place; S3: the manifest is last)."""
    if location.startswith("s3://"):
        async with open_storage(location) as target:
            if not await _empty(target):
                raise SnapshotError("The snapshot location is not empty.")
            yield target
        return
    final = _local_path(location)
    if final.exists() and (not final.is_dir() or any(final.iterdir())):
        raise SnapshotError(f"{final} exists and is not an empty directory.")
    final.parent.mkdir(parents=True, exist_ok=True)
    partial = final.parent / f".{final.name}.partial-{secrets.token_hex(4)}"
    try:
        async with LocalStorage(partial) as target:
            yield target
        if final.exists():
            final.rmdir()
        os.rename(partial, final)  # atomic: the snapshot appears complete or not at all
    finally:
        shutil.rmtree(partial, ignore_errors=True)


@asynccontextmanager
async def existing_snapshot(location: str) -> AsyncIterator[Storage]:
    """A storage reading the snapshot at `location`."""
    if _is_url(location) and not location.startswith("file://"):
        async with open_storage(location) as source:
            yield source
        return
    path = _local_path(location)
    if not path.is_dir():
        raise SnapshotError(f"{path} is not a directory.")
    async with LocalStorage(path) as source:
        yield source


async def one_chunk(data: bytes) -> AsyncIterator[bytes]:
    """data as a chunk stream."""
    yield data


def sorted_entries(entries: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Object entries in key order."""
    return sorted(entries, key=lambda e: str(e["key"]))
