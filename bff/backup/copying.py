"""What backup (bff/backup/service.py) and restore (bff/backup/restore.py) share: streaming one
object through hashing and encryption, running copies a bounded number at once, and the names
and versions a snapshot records."""

from __future__ import annotations

import asyncio
import importlib.metadata
from collections.abc import AsyncIterable, AsyncIterator, Callable
from pathlib import Path
from typing import Any

from bff.backup.snapshot import (
    Hashed,
)
from storage.base import ObjectKey, Storage

OBJECT_PREFIX = "objects/"
COPY_CONCURRENCY = 8
ENCRYPTED = ".age"  # every part's and object's name in a snapshot ends so

Say = Callable[[str], None]


def product_version() -> str:
    """The installed product's version."""
    try:
        return importlib.metadata.version("patient-records-bff")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def code_migrations() -> list[str]:
    """The migrations this version of the product has, oldest first ('bff.0001_initial')."""
    folder = Path(__file__).resolve().parent.parent / "migrations"
    return sorted(f"bff.{p.stem}" for p in folder.glob("[0-9][0-9][0-9][0-9]_*.py"))


Through = Callable[[AsyncIterable[bytes]], AsyncIterable[bytes]]


def unchanged(chunks: AsyncIterable[bytes]) -> AsyncIterable[bytes]:
    return chunks


async def copy_object(
    source: Storage,
    key: str,
    target: Storage,
    target_key: str,
    *,
    before: Through = unchanged,
    after: Through = unchanged,
    content_type: str | None = None,
    expected: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Stream one object from source to target, through before, then hashed, then through
    after (decrypt or encrypt); its entry (key, size, sha256 of the bytes between the two,
    content type: the source's unless given). With expected (an entry), ObjectMismatch unless
    the size and SHA-256 are its, raised before the write completes: the object is not stored."""
    async with await source.open_object(ObjectKey.parse(key)) as stream:
        hashed = Hashed(before(stream))
        body = after(hashed) if expected is None else expecting(hashed, expected)
        kept_type = content_type or stream.content_type
        await target.write_object(ObjectKey.parse(target_key), body, content_type=kept_type)
    return {
        "key": key,
        "size": hashed.size,
        "sha256": hashed.digest,
        "contentType": stream.content_type,
    }


class ObjectMismatch(Exception):
    """An object's bytes are not those its entry lists."""


async def expecting(hashed: Hashed, expected: dict[str, Any]) -> AsyncIterator[bytes]:
    """hashed's chunks, then ObjectMismatch unless their size and SHA-256 are expected's."""
    async for chunk in hashed:
        yield chunk
    if hashed.digest != expected["sha256"] or hashed.size != expected["size"]:
        raise ObjectMismatch


async def bounded(jobs: AsyncIterator[Any], work: Callable[[Any], Any], limit: int) -> None:
    """Run work(job) for every job, at most limit at once (the listing is never read ahead
    by more than limit jobs); the first failure stops it and is raised."""
    gate = asyncio.Semaphore(limit)
    running: set[asyncio.Task[Any]] = set()
    failures: list[BaseException] = []

    def finished(task: asyncio.Task[Any]) -> None:
        running.discard(task)
        gate.release()
        if not task.cancelled() and task.exception() is not None:
            failures.append(task.exception())  # type: ignore[arg-type]

    try:
        async for job in jobs:
            await gate.acquire()
            if failures:
                break
            task = asyncio.create_task(work(job))
            running.add(task)
            task.add_done_callback(finished)
        if running:
            await asyncio.gather(*running, return_exceptions=True)
    finally:
        for task in list(running):
            task.cancel()
    if failures:
        raise failures[0]


def part_name(table: str) -> str:
    """The part holding a table's rows."""
    return f"database/{table}.jsonl.gz{ENCRYPTED}"
