"""Local-disk storage: `{root}/{container}/{folder}/{file}`, with atomic writes (temp + rename).

Blocking filesystem calls run in worker threads (aiofiles or asyncio.to_thread), never on the
event loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import shutil
import stat as stat_module
from collections.abc import AsyncIterator, Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

import aiofiles

from storage.base import (
    CHUNK_SIZE,
    STAGING_DIR,
    TEMP_PREFIX,
    TEMP_SUFFIX,
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

WRITE_BUFFER = 1024 * 1024  # coalesce small incoming chunks into fewer, larger disk writes
_MISSING = (FileNotFoundError, NotADirectoryError, IsADirectoryError)
T = TypeVar("T")


@contextlib.contextmanager
def _translate(what: str, *, missing_is_not_found: bool = True) -> Iterator[None]:
    """Turn OSErrors from filesystem calls into the storage's typed errors."""
    try:
        yield
    except _MISSING as exc:
        if missing_is_not_found:
            raise NotFound(f"{what} does not exist.") from exc
        raise StorageUnavailable(f"Local storage failed on {what}: {exc.strerror}") from exc
    except OSError as exc:
        raise StorageUnavailable(f"Local storage failed on {what}: {exc.strerror}") from exc


def _info(name: str, st: os.stat_result, *, key: ObjectKey | None = None) -> FileInfo:
    """What a stat tells of the file name (or of the object key: name is its text form)."""
    return FileInfo(
        name=key.path if key else name,
        size=st.st_size,
        last_modified=datetime.fromtimestamp(st.st_mtime, UTC),
        content_type=guess_content_type(key.name if key else name),
    )


def _subdirectories(path: Path) -> list[str]:
    try:
        with os.scandir(path) as entries:
            return [
                entry.name
                for entry in entries
                if is_valid_name(entry.name) and entry.is_dir() and not is_temp_name(entry.name)
            ]
    except _MISSING:
        return []


def _files(path: Path) -> list[FileInfo]:
    infos = []
    try:
        with os.scandir(path) as entries:
            for entry in entries:
                if is_temp_name(entry.name) or not is_valid_name(entry.name):
                    continue
                try:
                    if entry.is_file():
                        infos.append(_info(entry.name, entry.stat()))
                except FileNotFoundError:  # deleted while listing
                    continue
    except _MISSING:
        return []
    return infos


def _entries(path: Path) -> tuple[list[tuple[str, os.stat_result]], list[str]]:
    """The regular files (with their stat) and subdirectories of a directory, for walking;
    temporary uploads, names no key may hold and symbolic links are left out."""
    files, directories = [], []
    try:
        with os.scandir(path) as entries:
            for entry in entries:
                if is_temp_name(entry.name) or not is_valid_segment(entry.name):
                    continue
                try:
                    if entry.is_dir(follow_symlinks=False):
                        directories.append(entry.name)
                    elif entry.is_file(follow_symlinks=False):
                        files.append((entry.name, entry.stat(follow_symlinks=False)))
                except FileNotFoundError:  # deleted while listing
                    continue
    except _MISSING:
        return [], []
    return sorted(files), sorted(directories)


def _stat_file(path: Path) -> os.stat_result:
    st = path.stat()
    if not stat_module.S_ISREG(st.st_mode):
        raise IsADirectoryError(21, "Not a regular file", str(path))
    return st


def _replace_durably(temp: Path, target: Path) -> None:
    """Rename temp over target, then fsync the directory so the rename survives a crash."""
    os.replace(temp, target)
    fd = os.open(target.parent, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _link_over(source: Path, target: Path) -> None:
    """Make target a second name of source's bytes (a copy where links are not supported),
    through a hidden temporary, so target is replaced whole or not at all."""
    _stat_file(source)
    target.parent.mkdir(parents=True, exist_ok=True)
    temp = target.parent / f"{TEMP_PREFIX}{secrets.token_hex(12)}{TEMP_SUFFIX}"
    try:
        try:
            os.link(source, temp)
        except OSError as exc:
            if isinstance(exc, FileNotFoundError):
                raise
            shutil.copyfile(source, temp)
            with open(temp, "rb+") as copied:
                os.fsync(copied.fileno())
        _replace_durably(temp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise


def _remove_empty(start: Path) -> None:
    """Remove the empty directories of start's tree, deepest first, and start itself."""
    for directory, _, _ in sorted(os.walk(start), key=lambda e: -len(e[0])):
        with contextlib.suppress(OSError):
            os.rmdir(directory)


class LocalStorage(Storage):
    """Files on local disk under root (created on start)."""

    def __init__(
        self,
        root: str | os.PathLike[str],
        *,
        chunk_size: int = CHUNK_SIZE,
        write_buffer: int = WRITE_BUFFER,
    ) -> None:
        self.root = Path(os.path.abspath(root))
        self.chunk_size = chunk_size
        self._write_buffer = write_buffer

    def __repr__(self) -> str:
        return f"LocalStorage({str(self.root)!r})"

    async def start(self) -> None:
        """Create the root folder if needed."""
        await self._mkdir(self.root)

    async def _run(self, what: str, func: Callable[..., T], *args: Any) -> T:
        with _translate(what):
            return await asyncio.to_thread(func, *args)

    async def _mkdir(self, path: Path) -> None:
        with _translate("a folder", missing_is_not_found=False):
            await asyncio.to_thread(path.mkdir, parents=True, exist_ok=True)

    def _path(self, *segments: str) -> Path:
        return self.root.joinpath(*segments)

    async def _list_containers(self) -> list[str]:
        return await self._run("the storage root", _subdirectories, self.root)

    async def _list_folders(self, container: str) -> list[str]:
        return await self._run("the container", _subdirectories, self._path(container))

    async def _list_files(self, container: str, folder: str) -> list[FileInfo]:
        return await self._run("the folder", _files, self._path(container, folder))

    async def _open_path(
        self, path: Path, offset: int, length: int | None, chunk_size: int
    ) -> ReadStream:
        name = path.name
        with _translate("The file"):
            handle = await aiofiles.open(path, "rb")
        try:
            with _translate("The file"):
                st = await asyncio.to_thread(os.fstat, handle.fileno())
                if not stat_module.S_ISREG(st.st_mode):
                    raise IsADirectoryError(21, "Not a regular file", str(path))
                start = min(offset, st.st_size)
                end = st.st_size if length is None else min(st.st_size, start + length)
                if start:
                    await handle.seek(start)
        except BaseException:
            await handle.close()
            raise

        async def chunks() -> AsyncIterator[bytes]:
            remaining = end - start
            while remaining > 0:
                with _translate("The file"):
                    data: bytes = await handle.read(min(chunk_size, remaining))
                if not data:  # truncated while reading
                    return
                remaining -= len(data)
                yield data

        return ReadStream(
            chunks(),
            length=end - start,
            size=st.st_size,
            content_type=guess_content_type(name),
            on_close=handle.close,
        )

    async def _write_into(
        self, directory: Path, name: str, chunks: AsyncIterator[bytes], *, direct: bool = False
    ) -> int:
        """Write a file through a hidden temporary beside it, or (direct) under its own name,
        where nothing reads it before it is complete (a staged object: a crash mid-write
        leaves it under its key, which the staging sweep knows)."""
        await self._mkdir(directory)
        hidden = f"{TEMP_PREFIX}{secrets.token_hex(12)}{TEMP_SUFFIX}"
        temp = directory / (name if direct else hidden)
        size = 0
        try:
            with _translate("the upload", missing_is_not_found=False):
                out = await aiofiles.open(temp, "xb")
            try:
                pending = bytearray()
                async for chunk in chunks:  # errors of the source propagate untranslated
                    size += len(chunk)
                    if not pending and len(chunk) >= self._write_buffer:
                        data: bytes | bytearray = chunk
                    else:
                        pending += chunk
                        if len(pending) < self._write_buffer:
                            continue
                        data, pending = pending, bytearray()
                    with _translate("the upload", missing_is_not_found=False):
                        await out.write(data)
                with _translate("the upload", missing_is_not_found=False):
                    if pending:
                        await out.write(pending)
                    await out.flush()
                    await asyncio.to_thread(os.fsync, out.fileno())
            finally:
                await out.close()
            with _translate("the upload", missing_is_not_found=False):
                await asyncio.to_thread(_replace_durably, temp, directory / name)
        except BaseException:
            # Synchronous on purpose: a cancelled task must not skip removing the partial file.
            with contextlib.suppress(OSError):
                os.unlink(temp)
            raise
        return size

    @property
    def _staging(self) -> Path:
        return self.root / STAGING_DIR

    async def _write_staged(
        self, key: str, chunks: AsyncIterator[bytes], content_type: str | None
    ) -> int:
        return await self._write_into(self._staging, key, chunks, direct=True)

    async def _publish_staged(self, key: str, target: ObjectKey) -> None:
        # One rename within the root's file system: the file appears whole or not at all.
        path = self._path(*target.segments)
        await self._mkdir(path.parent)
        await self._run("The staged file", _replace_durably, self._staging / key, path)

    async def _stat_staged(self, key: str) -> FileInfo:
        st = await self._run("The staged file", _stat_file, self._staging / key)
        return _info(key, st)

    async def _open_staged(
        self, key: str, offset: int, length: int | None, chunk_size: int
    ) -> ReadStream:
        return await self._open_path(self._staging / key, offset, length, chunk_size)

    async def _delete_staged(self, key: str) -> bool:
        try:
            await self._run("The staged file", (self._staging / key).unlink)
        except NotFound:
            return False
        return True

    async def _list_staged(self) -> list[FileInfo]:
        return await self._run("the staging folder", _files, self._staging)

    async def _copy_object(self, source: ObjectKey, target: ObjectKey) -> None:
        await self._run(
            "The file", _link_over, self._path(*source.segments), self._path(*target.segments)
        )

    async def _prune(self, prefix: ObjectKey) -> None:
        await self._run("the folder", _remove_empty, self._path(*prefix.segments))

    async def _create_container(self, container: str) -> None:
        await self._mkdir(self._path(container))

    async def _create_folder(self, container: str, folder: str) -> None:
        await self._mkdir(self._path(container, folder))

    async def _walk(self, prefix: ObjectKey | None) -> AsyncIterator[FileInfo]:
        pending = [prefix.segments if prefix else ()]  # depth first, one directory at a time
        while pending:
            segments = pending.pop()
            files, directories = await self._run("the storage", _entries, self._path(*segments))
            for name, st in files:
                yield _info("/".join((*segments, name)), st)
            pending.extend(
                (*segments, d) for d in reversed(directories) if segments or d != STAGING_DIR
            )

    async def _open_object(
        self, key: ObjectKey, offset: int, length: int | None, chunk_size: int
    ) -> ReadStream:
        return await self._open_path(self._path(*key.segments), offset, length, chunk_size)

    async def _stat_object(self, key: ObjectKey) -> FileInfo:
        st = await self._run("The file", _stat_file, self._path(*key.segments))
        return _info(key.name, st, key=key)

    async def _write_object(
        self, key: ObjectKey, chunks: AsyncIterator[bytes], content_type: str | None
    ) -> int:
        # Local disk keeps no content type: stat and listings infer it from the name.
        return await self._write_into(self._path(*key.segments[:-1]), key.name, chunks)

    async def _delete_object(self, key: ObjectKey) -> bool:
        path = self._path(*key.segments)
        try:
            await self._run("The file", _stat_file, path)  # refuses directories
            await self._run("The file", path.unlink)
        except NotFound:
            return False
        return True
