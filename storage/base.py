"""The storage interface: files kept as `{container}/{folder}/{file}` under one root.

Every public method validates its path segments here, once, before a backend sees them, so no
backend can be handed a name that escapes the root. Backends implement the `_`-prefixed hooks.
"""

from __future__ import annotations

import mimetypes
import re
import unicodedata
from abc import ABC, abstractmethod
from collections.abc import AsyncGenerator, AsyncIterable, AsyncIterator, Awaitable, Callable
from contextlib import aclosing
from dataclasses import dataclass
from datetime import datetime
from types import TracebackType
from typing import Self
from urllib.parse import unquote

CHUNK_SIZE = 64 * 1024
MAX_NAME_BYTES = 255
# Local writes go to a hidden file of this shape beside the target; listings skip it and no
# caller may use such a name, so a half-written upload can never be seen or overwritten.
TEMP_PREFIX = ".upload-"
TEMP_SUFFIX = ".part"
# Uploads are written under this top-level folder first (`{root}/.bff-staging/{key}`) and moved
# to their name only when the index commits (bff/files/staging.py). No container, folder or file
# may be named so, listings never show it, and `reindex` never sees what is in it.
STAGING_DIR = ".bff-staging"
# Every name starting so is the product's own (staging, file versions, trash, audit checkpoints):
# no container, folder or file a person names may start with it, and listings never show one.
RESERVED_PREFIX = ".bff-"
# Old versions of a file: `{container}/{folder}/.bff-versions/{file}/{versionId}`; the trash of
# a folder: `{container}/{folder}/.bff-trash/{trashId}/...` (bff/files/versions.py). The same
# layout on every backend, so nothing depends on S3 bucket versioning being on or off.
VERSIONS_DIR = ".bff-versions"
TRASH_DIR = ".bff-trash"
_STAGED_KEY = re.compile(r"[a-z0-9][a-z0-9-]{0,99}")  # fullmatch
# Bidirectional overrides make a name display differently from what it is ("cod.exe" shown
# as "exe.doc"), so they count as control characters here.
_BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


class StorageError(Exception):
    """Base class of every storage error."""


class NotFound(StorageError):
    """The file does not exist."""


class InvalidName(StorageError, ValueError):
    """A container, folder or file name is not acceptable (it could escape the root)."""


class StorageUnavailable(StorageError):
    """The storage could not be reached or refused the operation."""


class InvalidStorageURL(StorageError, ValueError):
    """A storage URL names no supported backend or has bad parameters."""


@dataclass(frozen=True, slots=True)
class FileInfo:
    """What is known about one stored file."""

    name: str
    size: int
    last_modified: datetime  # timezone-aware, UTC
    content_type: str | None


# Read the system's type tables now, at import: the first guess_type() would otherwise read
# /etc/mime.types inside a request, stalling the event loop (0.5 s under load in a profile of
# bench/live_bench.py, delaying every live event and request meanwhile).
mimetypes.init()


def guess_content_type(name: str) -> str | None:
    """The content type implied by a file name's extension, if any."""
    return mimetypes.guess_type(name, strict=False)[0]


def is_temp_name(name: str) -> bool:
    """Whether name is an in-progress upload's temporary name (hidden from listings)."""
    return name.startswith(TEMP_PREFIX)


def _segment_problem(segment: str) -> str | None:
    if segment in ("", ".", ".."):
        return "must not be empty, '.' or '..'"
    if "/" in segment or "\\" in segment:
        return "must not contain '/' or '\\'"
    if any(unicodedata.category(ch) in ("Cc", "Cs") or ch in _BIDI_CONTROLS for ch in segment):
        return "must not contain control characters"
    try:
        size = len(segment.encode("utf-8"))
    except UnicodeEncodeError:
        return "must be valid text"
    if size > MAX_NAME_BYTES:
        return f"must be at most {MAX_NAME_BYTES} bytes"
    return None


def _name_problem(segment: str) -> str | None:
    """Why segment is not a safe path segment (also percent-decoded), or None."""
    problem = _segment_problem(segment)
    decoded = segment
    for _ in range(3):  # nested encodings such as %252F
        if problem is not None:
            break
        previous, decoded = decoded, unquote(decoded)
        if decoded == previous:
            break
        problem = _segment_problem(decoded)
        if problem is not None:
            problem += " (even percent-encoded)"
    if problem is None and is_temp_name(segment):
        problem = f"must not start with {TEMP_PREFIX!r} (reserved)"
    return problem


def validate_name(segment: str, what: str = "name") -> str:
    """Return segment if it is a safe single path segment, else raise InvalidName.

    Rejects empty names, '.', '..', '/', '\\', control characters, names over 255 UTF-8 bytes,
    the temporary-upload names and the product's reserved names ('.bff-...'). Percent-encoded
    forms are checked too ('..%2F', '%2e%2e', '%00'), so a layer that decodes a name once more
    later cannot be tricked.
    """
    if not isinstance(segment, str):
        raise InvalidName(f"The {what} must be text.")
    problem = _name_problem(segment)
    if problem is None and segment.startswith(RESERVED_PREFIX):
        problem = f"must not start with {RESERVED_PREFIX!r} (reserved)"
    if problem is not None:
        raise InvalidName(f"Invalid {what}: it {problem}.")
    return segment


def is_valid_segment(segment: str) -> bool:
    """Whether segment may be part of an object key (reserved names included)."""
    return _name_problem(segment) is None


def validate_key(key: str) -> tuple[str, ...]:
    """The segments of an object key ('a/b/c'), each a safe segment; reserved names allowed.

    Keys address every stored object, the product's own included (versions, trash, audit
    checkpoints); the staging area and temporary uploads are not objects. InvalidName otherwise.
    """
    if not isinstance(key, str) or not key:
        raise InvalidName("An object key must be non-empty text.")
    segments = tuple(key.split("/"))
    for segment in segments:
        problem = _name_problem(segment)
        if problem is not None:
            raise InvalidName(f"Invalid object key: a segment {problem}.")
    if segments[0] == STAGING_DIR:
        raise InvalidName(f"Invalid object key: {STAGING_DIR!r} holds no objects.")
    return segments


def inner_path(path: tuple[str, ...]) -> str:
    """The relative path (segments joined by '/') of an object the product names inside a
    folder: reserved segments are allowed, anything that could escape the folder is not."""
    if not path:
        raise InvalidName("An object path needs at least one segment.")
    for segment in path:
        if not isinstance(segment, str) or (problem := _segment_problem(segment)) is not None:
            raise InvalidName(f"Invalid object path: a segment {problem or 'must be text'}.")
    return "/".join(path)


def is_valid_name(segment: str) -> bool:
    """Whether validate_name would accept segment (used to skip foreign names in listings)."""
    try:
        validate_name(segment)
    except InvalidName:
        return False
    return True


def validate_staged_key(key: str) -> str:
    """Return key if it can name a staged object (lower-case letters, digits, '-')."""
    if not isinstance(key, str) or not _STAGED_KEY.fullmatch(key):
        raise InvalidName("Invalid staging key.")
    return key


def check_range(offset: int, length: int | None) -> None:
    """Reject negative byte ranges."""
    if offset < 0 or (length is not None and length < 0):
        raise ValueError("offset and length must not be negative")


@dataclass(frozen=True, slots=True)
class ObjectKey:
    """Which stored object, by its path segments under the storage root: a file
    (`ObjectKey.file(container, folder, name)`) or one of the product's own objects under a
    reserved '.bff-' name (`ObjectKey.reserved(container, folder, ".bff-versions", ...)`).

    Every segment is a safe single path segment (no '/', '..', control characters, even
    percent-encoded), so the key can never reach outside the root on any backend.
    """

    segments: tuple[str, ...]

    def __post_init__(self) -> None:
        if not self.segments:
            raise InvalidName("An object key needs at least one segment.")
        for segment in self.segments:
            if not isinstance(segment, str):
                raise InvalidName("An object key's segments must be text.")
            problem = _name_problem(segment)
            if problem is not None:
                raise InvalidName(f"Invalid object key segment: it {problem}.")

    @classmethod
    def file(cls, container: str, folder: str, name: str) -> ObjectKey:
        """The key of a file people name (reserved names refused)."""
        return cls(
            (
                validate_name(container, "container name"),
                validate_name(folder, "folder name"),
                validate_name(name, "file name"),
            )
        )

    @classmethod
    def reserved(cls, *segments: str) -> ObjectKey:
        """The key of one of the product's own objects: some segment starts with '.bff-'."""
        if not any(segment.startswith(RESERVED_PREFIX) for segment in segments):
            raise InvalidName(f"A reserved object key has a segment starting {RESERVED_PREFIX!r}.")
        return cls(tuple(segments))

    @property
    def path(self) -> str:
        """The segments joined by '/' (relative to the storage root, not URL-encoded)."""
        return "/".join(self.segments)


class ReadStream(AsyncIterator[bytes]):
    """The bytes of one file (or a range of it), delivered in chunks; close it when done.

    `length` is the number of bytes the stream will deliver (after clamping the range to the
    file's size); `size` is the whole file's size. Use `async with` or `aclose()` if the stream
    may be abandoned before the end, so the file handle or connection is released.
    """

    def __init__(
        self,
        chunks: AsyncIterator[bytes],
        *,
        length: int,
        size: int,
        content_type: str | None,
        on_close: Callable[[], Awaitable[None]] | None = None,
    ) -> None:
        self._chunks = chunks
        self.length = length
        self.size = size
        self.content_type = content_type
        self._on_close = on_close
        self._closed = False

    def __aiter__(self) -> Self:
        return self

    async def __anext__(self) -> bytes:
        if self._closed:
            raise StopAsyncIteration
        try:
            return await self._chunks.__anext__()
        except StopAsyncIteration:
            await self.aclose()
            raise

    async def aclose(self) -> None:
        """Release the underlying file or connection; safe to call more than once."""
        if self._closed:
            return
        self._closed = True
        aclose = getattr(self._chunks, "aclose", None)
        try:
            if aclose is not None:
                await aclose()
        finally:
            if self._on_close is not None:
                await self._on_close()

    async def read_all(self) -> bytes:
        """Every remaining byte (only for small files: this holds them all in memory)."""
        return b"".join([chunk async for chunk in self])

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()


class Storage(ABC):
    """Files as `{container}/{folder}/{file}` under one root, on some backend.

    Use as `async with open_storage(url) as storage:` or call `start()` / `close()`.
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

    # The public interface: validates names, then delegates.

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
        infos = await self._list_files(*self._folder(container, folder))
        return sorted(infos, key=lambda info: info.name)

    async def stat(self, container: str, folder: str, name: str) -> FileInfo:
        """Size, content type (if known) and last-modified time of a file; NotFound if absent."""
        return await self._stat(*self._file(container, folder, name))

    async def exists(self, container: str, folder: str, name: str) -> bool:
        """Whether the file exists."""
        return await self._exists(*self._file(container, folder, name))

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
        check_range(offset, length)
        size = chunk_size or self.chunk_size
        if size <= 0:
            raise ValueError("chunk_size must be positive")
        return await self._open(*self._file(container, folder, name), offset, length, size)

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
        key = self._file(container, folder, name)
        content_type = content_type or guess_content_type(name)
        async with aclosing(_checked(chunks)) as checked:
            return await self._write(*key, checked, content_type)

    async def delete(self, container: str, folder: str, name: str) -> None:
        """Delete a file; NotFound if it does not exist."""
        await self._delete(*self._file(container, folder, name))

    # The staging area: objects written before they may be seen, then moved to their name.

    async def write_staged(
        self, key: str, chunks: AsyncIterable[bytes], *, content_type: str | None = None
    ) -> int:
        """Store the bytes of chunks as staged object key (never listed); return the size.

        As atomic as `write`: the staged object exists only once the stream has ended.
        """
        async with aclosing(_checked(chunks)) as checked:
            return await self._write_staged(validate_staged_key(key), checked, content_type)

    async def publish_staged(self, key: str, container: str, folder: str, name: str) -> None:
        """Move staged object key to the file's name, replacing any previous file.

        Local disk renames (atomic); S3 copies server-side, then deletes the staged object.
        NotFound if the staged object does not exist.
        """
        await self._publish_staged(validate_staged_key(key), *self._file(container, folder, name))

    async def stat_staged(self, key: str) -> FileInfo:
        """Size and last-modified time of staged object key; NotFound if absent."""
        return await self._stat_staged(validate_staged_key(key))

    async def delete_staged(self, key: str) -> bool:
        """Delete staged object key; whether it existed."""
        return await self._delete_staged(validate_staged_key(key))

    async def list_staged(self) -> list[FileInfo]:
        """Every staged object (name: its key), sorted by key."""
        return sorted(await self._list_staged(), key=lambda info: info.name)

    # Whole-store access by object key ('container/folder/name', '.bff-audit/...'): for backup,
    # restore and the product's own records. Never for a name a person typed: use the methods
    # above, which refuse reserved names.

    async def walk(self, prefix: str = "") -> AsyncIterator[FileInfo]:
        """Every stored object under prefix (whole segments; '' for all), name = its full key.

        Streams (one directory or listing page at a time). Staging, temporary uploads and empty
        folders are not objects. No order is promised.
        """
        segments = validate_key(prefix) if prefix else ()
        async for info in self._walk(segments):
            yield info

    async def open_object(
        self, key: str, *, offset: int = 0, length: int | None = None
    ) -> ReadStream:
        """Stream an object's bytes like `open`; NotFound if absent."""
        check_range(offset, length)
        return await self._open_object(validate_key(key), offset, length, self.chunk_size)

    async def stat_object(self, key: str) -> FileInfo:
        """Size, content type and last-modified time of an object (name: its key); NotFound."""
        return await self._stat_object(validate_key(key))

    async def write_object(
        self, key: str, chunks: AsyncIterable[bytes], *, content_type: str | None = None
    ) -> int:
        """Store an object as atomically as `write`; return its size."""
        segments = validate_key(key)
        async with aclosing(_checked(chunks)) as checked:
            return await self._write_object(
                segments, checked, content_type or guess_content_type(segments[-1])
            )

    async def delete_object(self, key: str) -> bool:
        """Delete an object; whether it existed."""
        return await self._delete_object(validate_key(key))

    # Objects the product itself names inside a folder (versions, trash): paths of segments,
    # reserved names allowed. Only the server's own code calls these, never with a user's path.

    async def stat_path(self, container: str, folder: str, path: tuple[str, ...]) -> FileInfo:
        """Size and last-modified time of an object inside a folder; NotFound if absent."""
        return await self._stat(*self._inner(container, folder, path))

    async def open_path(
        self,
        container: str,
        folder: str,
        path: tuple[str, ...],
        *,
        offset: int = 0,
        length: int | None = None,
        chunk_size: int | None = None,
    ) -> ReadStream:
        """Stream an object inside a folder, like `open`."""
        check_range(offset, length)
        size = chunk_size or self.chunk_size
        if size <= 0:
            raise ValueError("chunk_size must be positive")
        return await self._open(*self._inner(container, folder, path), offset, length, size)

    async def copy_path(
        self, container: str, folder: str, source: tuple[str, ...], target: tuple[str, ...]
    ) -> None:
        """Put a copy of object source at target, replacing it atomically; source stays.

        Local disk links (no bytes copied: files are only ever replaced, never written in
        place); S3 copies server-side. NotFound if source does not exist.
        """
        c, f = self._folder(container, folder)
        await self._copy(c, f, inner_path(source), inner_path(target))

    async def delete_path(self, container: str, folder: str, path: tuple[str, ...]) -> bool:
        """Delete an object inside a folder; whether it existed."""
        try:
            await self._delete(*self._inner(container, folder, path))
        except NotFound:
            return False
        return True

    async def list_tree(
        self, container: str, folder: str, prefix: tuple[str, ...]
    ) -> list[tuple[tuple[str, ...], FileInfo]]:
        """Every object under prefix inside a folder, at any depth: (path relative to the
        folder, info), sorted by path; [] if there is none."""
        c, f = self._folder(container, folder)
        found = await self._list_tree(c, f, inner_path(prefix))
        return sorted(found, key=lambda item: item[0])

    async def delete_tree(self, container: str, folder: str, prefix: tuple[str, ...]) -> int:
        """Delete every object under prefix inside a folder; how many there were."""
        removed = 0
        for path, _ in await self.list_tree(container, folder, prefix):
            if await self.delete_path(container, folder, path):
                removed += 1
        c, f = self._folder(container, folder)
        await self._prune(c, f, inner_path(prefix))
        return removed

    async def create_container(self, container: str) -> None:
        """Create an empty container (no error if it exists)."""
        await self._create_container(validate_name(container, "container name"))

    async def create_folder(self, container: str, folder: str) -> None:
        """Create an empty folder, and its container if needed (no error if it exists)."""
        await self._create_folder(*self._folder(container, folder))

    @staticmethod
    def _folder(container: str, folder: str) -> tuple[str, str]:
        return validate_name(container, "container name"), validate_name(folder, "folder name")

    @staticmethod
    def _file(container: str, folder: str, name: str) -> tuple[str, str, str]:
        return (
            validate_name(container, "container name"),
            validate_name(folder, "folder name"),
            validate_name(name, "file name"),
        )

    async def presigned_get(
        self, key: ObjectKey, *, seconds: int, response_headers: dict[str, str]
    ) -> str | None:
        """A URL that lets whoever holds it GET object key for seconds, answered with
        response_headers (Content-Type, Content-Disposition, Cache-Control), or None when the
        backend has no such URLs (local disk: nginx sends those, see bff/files/offload.py)."""
        return None

    def _inner(self, container: str, folder: str, path: tuple[str, ...]) -> tuple[str, str, str]:
        return (*self._folder(container, folder), inner_path(path))

    # Backend hooks: names are already validated (a name may be a relative path of segments).

    @abstractmethod
    async def _list_containers(self) -> list[str]: ...

    @abstractmethod
    async def _list_folders(self, container: str) -> list[str]: ...

    @abstractmethod
    async def _list_files(self, container: str, folder: str) -> list[FileInfo]: ...

    @abstractmethod
    async def _stat(self, container: str, folder: str, name: str) -> FileInfo: ...

    async def _exists(self, container: str, folder: str, name: str) -> bool:
        try:
            await self._stat(container, folder, name)
        except NotFound:
            return False
        return True

    @abstractmethod
    async def _open(
        self,
        container: str,
        folder: str,
        name: str,
        offset: int,
        length: int | None,
        chunk_size: int,
    ) -> ReadStream: ...

    @abstractmethod
    async def _write(
        self,
        container: str,
        folder: str,
        name: str,
        chunks: AsyncIterator[bytes],
        content_type: str | None,
    ) -> int: ...

    @abstractmethod
    async def _delete(self, container: str, folder: str, name: str) -> None: ...

    @abstractmethod
    async def _write_staged(
        self, key: str, chunks: AsyncIterator[bytes], content_type: str | None
    ) -> int: ...

    @abstractmethod
    async def _publish_staged(self, key: str, container: str, folder: str, name: str) -> None: ...

    @abstractmethod
    async def _stat_staged(self, key: str) -> FileInfo: ...

    @abstractmethod
    async def _delete_staged(self, key: str) -> bool: ...

    @abstractmethod
    async def _list_staged(self) -> list[FileInfo]: ...

    @abstractmethod
    async def _copy(self, container: str, folder: str, source: str, target: str) -> None: ...

    @abstractmethod
    async def _list_tree(
        self, container: str, folder: str, prefix: str
    ) -> list[tuple[tuple[str, ...], FileInfo]]: ...

    async def _prune(self, container: str, folder: str, prefix: str) -> None:  # noqa: B027
        """Remove what an emptied tree leaves behind (local disk: its directories)."""

    @abstractmethod
    async def _create_container(self, container: str) -> None: ...

    @abstractmethod
    async def _create_folder(self, container: str, folder: str) -> None: ...

    @abstractmethod
    def _walk(self, prefix: tuple[str, ...]) -> AsyncIterator[FileInfo]: ...

    @abstractmethod
    async def _open_object(
        self, key: tuple[str, ...], offset: int, length: int | None, chunk_size: int
    ) -> ReadStream: ...

    @abstractmethod
    async def _stat_object(self, key: tuple[str, ...]) -> FileInfo: ...

    @abstractmethod
    async def _write_object(
        self, key: tuple[str, ...], chunks: AsyncIterator[bytes], content_type: str | None
    ) -> int: ...

    @abstractmethod
    async def _delete_object(self, key: tuple[str, ...]) -> bool: ...


async def _checked(chunks: AsyncIterable[bytes]) -> AsyncGenerator[bytes, None]:
    """Pass chunks through, refusing anything that is not bytes-like and skipping empty ones."""
    async for chunk in chunks:
        if isinstance(chunk, memoryview):
            chunk = chunk.tobytes()  # its len() may count items, not bytes
        elif not isinstance(chunk, bytes | bytearray):
            raise TypeError(f"write() chunks must be bytes, not {type(chunk).__name__}")
        if chunk:
            yield chunk
