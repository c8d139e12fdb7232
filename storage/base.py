"""The storage interface: files kept as `{container}/{folder}/{file}` under one root.

Every public method validates its path segments here, once, before a backend sees them, so no
backend can be handed a name that escapes the root. Backends implement the `_`-prefixed hooks.
Naming lives in storage/keys.py, read streams in storage/streams.py, errors in storage/errors.py;
this module re-exports what callers use of them.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import AsyncIterable, AsyncIterator
from contextlib import aclosing
from dataclasses import replace
from types import TracebackType
from typing import Self

from storage.errors import (
    InvalidName,
    InvalidStorageURL,
    NotFound,
    StorageError,
    StorageUnavailable,
)
from storage.keys import (
    MAX_NAME_BYTES,
    PREVIEWS_DIR,
    QUARANTINE_DIR,
    RESERVED_PREFIX,
    STAGING_DIR,
    TEMP_PREFIX,
    TEMP_SUFFIX,
    TRASH_DIR,
    VERSIONS_DIR,
    FileInfo,
    ObjectKey,
    guess_content_type,
    is_temp_name,
    is_valid_name,
    is_valid_segment,
    validate_name,
    validate_staged_key,
)
from storage.streams import CHUNK_SIZE, ReadStream, check_range, checked_chunks

__all__ = [
    "CHUNK_SIZE",
    "MAX_NAME_BYTES",
    "PREVIEWS_DIR",
    "QUARANTINE_DIR",
    "RESERVED_PREFIX",
    "STAGING_DIR",
    "TEMP_PREFIX",
    "TEMP_SUFFIX",
    "TRASH_DIR",
    "VERSIONS_DIR",
    "FileInfo",
    "InvalidName",
    "InvalidStorageURL",
    "NotFound",
    "ObjectKey",
    "ReadStream",
    "Storage",
    "StorageError",
    "StorageUnavailable",
    "guess_content_type",
    "is_temp_name",
    "is_valid_name",
    "is_valid_segment",
    "validate_name",
]


class Storage(ABC):
    """Files as `{container}/{folder}/{file}` under one root, on some backend.

    Use as `async with open_storage(url) as storage:` or call `start()` / `close()`.
    Every stored object is named by an ObjectKey; the file methods take the three names a
    person gave and make the key with `ObjectKey.file` (reserved names refused).
    Errors: NotFound, InvalidName, StorageUnavailable (all StorageError).
    """

    chunk_size: int = CHUNK_SIZE

    async def start(self) -> None:  # noqa: B027 - an optional hook, not abstract
        """Open connections or create the root; call before use."""

    async def close(self) -> None:  # noqa: B027 - an optional hook, not abstract
        """Release connections; the instance is unusable afterwards."""

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    # Containers, folders and the files people name in them.

    async def list_containers(self) -> list[str]:
        """The containers, sorted by name."""
        return sorted(await self._list_containers())

    async def list_folders(self, container: str) -> list[str]:
        """The folders of a container, sorted by name; [] for an unknown container."""
        return sorted(await self._list_folders(validate_name(container, "container name")))

    async def list_files(self, container: str, folder: str) -> list[FileInfo]:
        """The files of a folder, sorted by name; [] for an unknown folder.

        Content types here are inferred from the names; `stat` returns a stored one where the
        backend keeps it.
        """
        key = ObjectKey.folder(container, folder)
        infos = await self._list_files(*key.segments)
        return sorted(infos, key=lambda info: info.name)

    async def stat(self, container: str, folder: str, name: str) -> FileInfo:
        """Size, content type (if known) and last-modified time of a file (name: the file's
        name); NotFound if absent."""
        info = await self._stat_object(ObjectKey.file(container, folder, name))
        return replace(info, name=name)

    async def exists(self, container: str, folder: str, name: str) -> bool:
        """Whether the file exists."""
        try:
            await self._stat_object(ObjectKey.file(container, folder, name))
        except NotFound:
            return False
        return True

    async def open(
        self,
        container: str,
        folder: str,
        name: str,
        *,
        offset: int = 0,
        length: int | None = None,
        chunk_size: int | None = None,
    ) -> ReadStream:
        """Stream a file's bytes from offset, at most length of them (None: to the end).

        Raises NotFound at once if the file is absent. A range beyond the end yields no bytes.
        """
        key = ObjectKey.file(container, folder, name)
        return await self.open_object(key, offset=offset, length=length, chunk_size=chunk_size)

    async def write(
        self,
        container: str,
        folder: str,
        name: str,
        chunks: AsyncIterable[bytes],
        *,
        content_type: str | None = None,
    ) -> int:
        """Store the bytes of chunks as the file, replacing any previous one; return the size.

        Atomic: the file appears (or is replaced) only once the stream has ended; if chunks
        raises, or the write is cancelled, nothing is left under the name and the previous
        content, if any, is untouched. The container and folder are created as needed.
        """
        key = ObjectKey.file(container, folder, name)
        content_type = content_type or guess_content_type(name)
        async with aclosing(checked_chunks(chunks)) as checked:
            return await self._write_file(key, checked, content_type)

    async def delete(self, container: str, folder: str, name: str) -> None:
        """Delete a file; NotFound if it does not exist."""
        if not await self._delete_object(ObjectKey.file(container, folder, name)):
            raise NotFound("The file does not exist.")

    async def create_container(self, container: str) -> None:
        """Create an empty container (no error if it exists)."""
        await self._create_container(validate_name(container, "container name"))

    async def create_folder(self, container: str, folder: str) -> None:
        """Create an empty folder, and its container if needed (no error if it exists)."""
        await self._create_folder(*ObjectKey.folder(container, folder).segments)

    # The staging area: objects written before they may be seen, then moved to their name.

    async def write_staged(
        self, key: str, chunks: AsyncIterable[bytes], *, content_type: str | None = None
    ) -> int:
        """Store the bytes of chunks as staged object key (never listed); return the size.

        As atomic as `write`: the staged object exists only once the stream has ended.
        """
        async with aclosing(checked_chunks(chunks)) as checked:
            return await self._write_staged(validate_staged_key(key), checked, content_type)

    async def publish_staged(self, key: str, container: str, folder: str, name: str) -> None:
        """Move staged object key to the file's name, replacing any previous file.

        Local disk renames (atomic); S3 copies server-side, then deletes the staged object.
        NotFound if the staged object does not exist.
        """
        target = ObjectKey.file(container, folder, name)
        await self._publish_staged(validate_staged_key(key), target)

    async def keep_staged(self, key: str, target: ObjectKey) -> None:
        """Move staged object key to one of the product's own objects (a quarantined upload's
        bytes), never to a name a person gave; as `publish_staged` moves. NotFound if absent."""
        if not any(segment.startswith(RESERVED_PREFIX) for segment in target.segments):
            raise InvalidName(
                f"A kept staged object's key has a segment starting {RESERVED_PREFIX!r}."
            )
        await self._publish_staged(validate_staged_key(key), target)

    async def stat_staged(self, key: str) -> FileInfo:
        """Size and last-modified time of staged object key; NotFound if absent."""
        return await self._stat_staged(validate_staged_key(key))

    async def open_staged(
        self, key: str, *, offset: int = 0, length: int | None = None
    ) -> ReadStream:
        """Stream staged object key's bytes (from offset, at most length) like `open`: what
        screening reads back of content before it is let in (bff/files/content.py); NotFound
        if absent."""
        check_range(offset, length)
        return await self._open_staged(validate_staged_key(key), offset, length, self.chunk_size)

    async def delete_staged(self, key: str) -> bool:
        """Delete staged object key; whether it existed."""
        return await self._delete_staged(validate_staged_key(key))

    async def list_staged(self) -> list[FileInfo]:
        """Every staged object (name: its key), sorted by key."""
        return sorted(await self._list_staged(), key=lambda info: info.name)

    # Every object by its key: files, the product's own (versions, trash, thumbnails, audit
    # checkpoints), whole-store backup and restore. A key made from a name a person typed is
    # made with ObjectKey.file, which refuses reserved names.

    async def walk(self, prefix: ObjectKey | None = None) -> AsyncIterator[FileInfo]:
        """Every stored object under prefix (None: all), name = its key's text form.

        Streams (one directory or listing page at a time). Staging, temporary uploads and empty
        folders are not objects. No order is promised.
        """
        async for info in self._walk(prefix):
            yield info

    async def stat_object(self, key: ObjectKey) -> FileInfo:
        """Size, content type and last-modified time of an object (name: its key's text form);
        NotFound if absent."""
        return await self._stat_object(key)

    async def open_object(
        self,
        key: ObjectKey,
        *,
        offset: int = 0,
        length: int | None = None,
        chunk_size: int | None = None,
    ) -> ReadStream:
        """Stream an object's bytes like `open`; NotFound if absent."""
        check_range(offset, length)
        size = chunk_size or self.chunk_size
        if size <= 0:
            raise ValueError("chunk_size must be positive")
        return await self._open_object(key, offset, length, size)

    async def write_object(
        self, key: ObjectKey, chunks: AsyncIterable[bytes], *, content_type: str | None = None
    ) -> int:
        """Store an object as atomically as `write`; return its size."""
        async with aclosing(checked_chunks(chunks)) as checked:
            return await self._write_object(
                key, checked, content_type or guess_content_type(key.name)
            )

    async def copy_object(self, source: ObjectKey, target: ObjectKey) -> None:
        """Put a copy of object source at target, replacing it atomically; source stays.

        Local disk links (no bytes copied: files are only ever replaced, never written in
        place); S3 copies server-side. NotFound if source does not exist.
        """
        await self._copy_object(source, target)

    async def delete_object(self, key: ObjectKey) -> bool:
        """Delete an object; whether it existed."""
        return await self._delete_object(key)

    async def delete_tree(self, prefix: ObjectKey) -> int:
        """Delete every object under prefix; how many there were."""
        removed = 0
        for key in [ObjectKey.parse(info.name) async for info in self.walk(prefix)]:
            if await self.delete_object(key):
                removed += 1
        await self._prune(prefix)
        return removed

    async def presigned_get(
        self, key: ObjectKey, *, seconds: int, response_headers: dict[str, str]
    ) -> str | None:
        """A URL that lets whoever holds it GET object key for seconds, answered with
        response_headers (Content-Type, Content-Disposition, Cache-Control), or None when the
        backend has no such URLs (local disk: nginx sends those, see bff/files/offload.py)."""
        return None

    # Backend hooks: names and keys are already validated.

    @abstractmethod
    async def _list_containers(self) -> list[str]: ...

    @abstractmethod
    async def _list_folders(self, container: str) -> list[str]: ...

    @abstractmethod
    async def _list_files(self, container: str, folder: str) -> list[FileInfo]: ...

    @abstractmethod
    async def _create_container(self, container: str) -> None: ...

    @abstractmethod
    async def _create_folder(self, container: str, folder: str) -> None: ...

    @abstractmethod
    async def _write_staged(
        self, key: str, chunks: AsyncIterator[bytes], content_type: str | None
    ) -> int: ...

    @abstractmethod
    async def _publish_staged(self, key: str, target: ObjectKey) -> None: ...

    @abstractmethod
    async def _stat_staged(self, key: str) -> FileInfo: ...

    @abstractmethod
    async def _open_staged(
        self, key: str, offset: int, length: int | None, chunk_size: int
    ) -> ReadStream: ...

    @abstractmethod
    async def _delete_staged(self, key: str) -> bool: ...

    @abstractmethod
    async def _list_staged(self) -> list[FileInfo]: ...

    @abstractmethod
    def _walk(self, prefix: ObjectKey | None) -> AsyncIterator[FileInfo]: ...

    @abstractmethod
    async def _stat_object(self, key: ObjectKey) -> FileInfo: ...

    @abstractmethod
    async def _open_object(
        self, key: ObjectKey, offset: int, length: int | None, chunk_size: int
    ) -> ReadStream: ...

    @abstractmethod
    async def _write_object(
        self, key: ObjectKey, chunks: AsyncIterator[bytes], content_type: str | None
    ) -> int: ...

    async def _write_file(
        self, key: ObjectKey, chunks: AsyncIterator[bytes], content_type: str | None
    ) -> int:
        """Write a file people name (S3 also keeps its folder's marker)."""
        return await self._write_object(key, chunks, content_type)

    @abstractmethod
    async def _copy_object(self, source: ObjectKey, target: ObjectKey) -> None: ...

    @abstractmethod
    async def _delete_object(self, key: ObjectKey) -> bool: ...

    async def _prune(self, prefix: ObjectKey) -> None:  # noqa: B027
        """Remove what an emptied tree leaves behind (local disk: its directories)."""
