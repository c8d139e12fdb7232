"""Streaming reader of a multipart/form-data upload: text fields, then one file, never all in RAM.

Every byte of the body counts against the form's limit (the upload limit plus FORM_OVERHEAD),
whether or not the client declared a Content-Length: the preamble, part headers, fields and
epilogue as well as the file. A preamble, a part's headers or an epilogue may not exceed
FORM_OVERHEAD (docs/api.md), checked both while the decoder holds them and once each is read
whole, so memory stays bounded whatever the body holds and the rule holds however it arrived.

The file part is handed out as an async stream of chunks that ends only once the whole form
has been read and checked, so a storage write fed by it commits only for a complete, valid
request: a dropped connection, a truncated body or a second file leaves nothing behind.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field

from werkzeug.exceptions import RequestEntityTooLarge
from werkzeug.http import parse_options_header
from werkzeug.sansio.multipart import (
    Data,
    Epilogue,
    Field,
    File,
    MultipartDecoder,
    NeedData,
    Preamble,
)

from bff.errors import ApiError

FormCheck = Callable[[dict[str, str]], Awaitable[None]]
FIELD_LIMIT = 4096  # bytes of one text field
FORM_OVERHEAD = 64 * 1024  # multipart boundaries, part headers and the small text fields
MAX_PARTS = 16


NOT_MULTIPART = "Send the file as multipart/form-data."
NO_FILE = "Please select a file to upload"
INCOMPLETE = "The upload was incomplete. Please try again."
TIMED_OUT = "The upload stalled and timed out. Please try again."
ONE_FILE = "Send one file per upload."
FIELDS_FIRST = "The form fields filename and isProfileImage must come before the file, or match it."
FORM_TOO_LARGE = (
    "The form around the file is too large: at most 64 KB may come before the first boundary, "
    "in a part's headers or after the last boundary."
)


@dataclass
class FilePart:
    """The file part's own name and declared type, and the text fields sent before it."""

    filename: str
    content_type: str | None
    fields: dict[str, str] = field(default_factory=dict)


class UploadForm:
    """One multipart upload, read as it arrives.

    `await start()` reads the text fields up to the file part; `chunks(limit)` then streams the
    file's bytes, reads the rest of the form and lets the caller check it (`before_end`) before
    the stream ends, so a refusal there still leaves nothing stored.
    """

    def __init__(
        self,
        body: AsyncIterator[bytes],
        content_type: str,
        idle_timeout: float,
        *,
        max_file: int,
        too_large: str,
    ) -> None:
        """`max_file` is the upload limit: the whole body may be `max_file + FORM_OVERHEAD`
        bytes; past that ApiError(413, too_large); more than FORM_OVERHEAD before the first
        boundary, in a part's headers or after the last boundary, ApiError(413, FORM_TOO_LARGE)."""
        mimetype, options = parse_options_header(content_type or "")
        boundary = options.get("boundary", "")
        if mimetype != "multipart/form-data" or not boundary or len(boundary) > 200:
            raise ApiError(400, NOT_MULTIPART)
        self._body = body
        self._decoder = MultipartDecoder(boundary.encode("latin-1"), max_parts=MAX_PARTS)
        self._idle_timeout = idle_timeout
        self._max_body = max_file + FORM_OVERHEAD
        self._too_large = too_large
        self._received = 0
        self._pending = memoryview(b"")
        self._ended = False
        self.size = 0
        self.part: FilePart | None = None

    async def _next_event(self) -> object:
        while True:
            held = len(self._decoder.buffer)
            try:
                event = self._decoder.next_event()
            except ValueError:
                raise ApiError(400, INCOMPLETE) from None
            except RequestEntityTooLarge:  # werkzeug's signal for too many parts
                raise ApiError(400, ONE_FILE) from None
            if not isinstance(event, NeedData):
                self._check_around_the_file(event, held - len(self._decoder.buffer))
                return event
            if self._ended:
                raise ApiError(400, INCOMPLETE)
            if len(self._decoder.buffer) > FORM_OVERHEAD:
                # Held back from a preamble, part headers or an epilogue: never file bytes.
                raise ApiError(413, FORM_TOO_LARGE)
            if self._pending:
                # The decoder gets at most FORM_OVERHEAD at a time, so the check above holds
                # however the body arrived (the streamed body may hand over up to 1MB at once).
                piece = self._pending[:FORM_OVERHEAD]  # no copy: the decoder extends a bytearray
                self._decoder.receive_data(piece)  # type: ignore[arg-type]
                self._pending = self._pending[FORM_OVERHEAD:]
                continue
            try:
                async with asyncio.timeout(self._idle_timeout):
                    chunk = await anext(self._body)
            except StopAsyncIteration:
                self._ended = True
                self._decoder.receive_data(None)
            except TimeoutError:
                raise ApiError(408, TIMED_OUT) from None
            else:
                self._received += len(chunk)
                if self._received > self._max_body:
                    raise ApiError(413, self._too_large)
                self._pending = memoryview(chunk)

    @staticmethod
    def _check_around_the_file(event: object, consumed: int) -> None:
        """413 for a preamble, a part's headers or an epilogue of more than FORM_OVERHEAD,
        however it arrived: one that came whole with what follows it is never seen waiting for
        data (a 70,000-byte preamble sent with its first part was accepted)."""
        if isinstance(event, Preamble | Epilogue):
            size = len(event.data)
        elif isinstance(event, Field | File):
            size = consumed  # the part's headers: what the decoder took to read them
        else:
            return
        if size > FORM_OVERHEAD:
            raise ApiError(413, FORM_TOO_LARGE)

    async def _field_value(self) -> str:
        value = bytearray()
        while True:
            event = await self._next_event()
            if not isinstance(event, Data):
                raise ApiError(400, INCOMPLETE)
            value += event.data
            if len(value) > FIELD_LIMIT:
                raise ApiError(400, "A form field is too long.")
            if not event.more_data:
                return value.decode("utf-8", errors="replace")

    async def start(self) -> FilePart:
        """Read the text fields up to the file part; 400 'Please select a file' if there is none."""
        fields: dict[str, str] = {}
        while True:
            event = await self._next_event()
            if isinstance(event, Field):
                fields[event.name] = await self._field_value()
            elif isinstance(event, File):
                if not event.filename and not fields.get("filename"):
                    raise ApiError(400, NO_FILE)
                self.part = FilePart(event.filename, event.headers.get("content-type"), fields)
                return self.part
            elif isinstance(event, Epilogue):
                raise ApiError(400, NO_FILE)

    async def chunks(
        self, limit: int, too_large: str, before_end: FormCheck | None = None
    ) -> AsyncIterator[bytes]:
        """The file's bytes; ApiError 413 past limit, 400 if the form is incomplete.

        After the file, the rest of the form is read (another file is refused) and
        `before_end(fields sent after the file)` runs; it may raise to refuse the upload.
        """
        while True:
            event = await self._next_event()
            if not isinstance(event, Data):
                raise ApiError(400, INCOMPLETE)
            self.size += len(event.data)
            if self.size > limit:
                raise ApiError(413, too_large)
            if event.data:
                yield event.data
            if not event.more_data:
                break
        trailing: dict[str, str] = {}
        while True:
            event = await self._next_event()
            if isinstance(event, Epilogue):
                break
            if isinstance(event, File):
                raise ApiError(400, ONE_FILE)
            if isinstance(event, Field):
                trailing[event.name] = await self._field_value()
        if before_end is not None:
            await before_end(trailing)

    async def read(self, limit: int, too_large: str, before_end: FormCheck | None = None) -> bytes:
        """The whole file in memory (only for small, bounded files: profile images, RTF)."""
        data = bytearray()
        async for chunk in self.chunks(limit, too_large, before_end):
            data += chunk
        return bytes(data)
