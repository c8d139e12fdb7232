"""Streams of stored bytes: what a read returns, and the checks a written stream passes."""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterable, AsyncIterator, Awaitable, Callable
from types import TracebackType
from typing import Self

CHUNK_SIZE = 64 * 1024


def check_range(offset: int, length: int | None) -> None:
    """Reject negative byte ranges."""
    if offset < 0 or (length is not None and length < 0):
        raise ValueError("offset and length must not be negative")


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


async def checked_chunks(chunks: AsyncIterable[bytes]) -> AsyncGenerator[bytes, None]:
    """Pass chunks through, refusing anything that is not bytes-like and skipping empty ones."""
    async for chunk in chunks:
        if isinstance(chunk, memoryview):
            chunk = chunk.tobytes()  # its len() may count items, not bytes
        elif not isinstance(chunk, bytes | bytearray):
            raise TypeError(f"write() chunks must be bytes, not {type(chunk).__name__}")
        if chunk:
            yield chunk
