"""A private folder for work on an intake content in the worker pool (bff/workers.py): the
content copied there from storage a chunk at a time (never whole in the server's memory), the
worker reading it and writing what it makes there, the server streaming that back out; the
folder removed afterwards. It lies in var/jobs/ (bff/jobs/service.py `work_dir`), where what a
killed process left is removed."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import aiofiles

from bff.jobs.service import work_dir, work_folder
from config.settings import Settings
from storage.base import ReadStream

CHUNK = 1024 * 1024


@asynccontextmanager
async def private_folder(settings: Settings) -> AsyncIterator[Path]:
    """A new folder of this process's own in var/jobs/, removed (with what is in it) after the
    block, however it ends (bff/jobs/service.py `work_folder`)."""
    root = await asyncio.to_thread(work_dir, settings)
    async with work_folder(root) as folder:
        yield folder


async def copy_into(stream: ReadStream, path: Path) -> None:
    """Write what stream holds to path, a chunk at a time (the stream is closed after)."""
    async with stream as chunks, aiofiles.open(path, "wb") as out:
        async for chunk in chunks:
            await out.write(chunk)


async def file_chunks(path: Path) -> AsyncIterator[bytes]:
    """A local file's bytes, a chunk at a time."""
    async with aiofiles.open(path, "rb") as handle:
        while chunk := await handle.read(CHUNK):
            yield chunk
