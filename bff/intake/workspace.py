"""A private folder for work on an intake content in the worker pool (bff/workers.py): the
content copied there from storage a chunk at a time (never whole in the server's memory), the
worker reading it and writing what it makes there, the server streaming that back out; the
folder removed afterwards. It lies in var/jobs/ (bff/jobs/service.py `work_dir`), where what a
killed process left is removed."""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import aiofiles

from bff.jobs.service import work_dir
from config.settings import Settings
from storage.base import ReadStream

CHUNK = 1024 * 1024


@asynccontextmanager
async def private_folder(settings: Settings) -> AsyncIterator[Path]:
    """A new folder of this process's own, removed (with what is in it) after the block,
    however it ends. Made on the loop (one mkdir): made in a thread, a cancellation while it
    was being made left it behind for the life of the process."""
    root = await asyncio.to_thread(work_dir, settings)
    folder = Path(tempfile.mkdtemp(prefix=f"{os.getpid()}-", dir=root))
    try:
        yield folder
    finally:
        try:
            await asyncio.to_thread(shutil.rmtree, folder, True)
        except BaseException:  # cancelled meanwhile, or no loop left to run it: removed here
            shutil.rmtree(folder, True)
            raise


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
