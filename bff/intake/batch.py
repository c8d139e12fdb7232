"""An upload batch for the intake: one multipart form with several files, read as it arrives
(bff/files/multipart.py's reader and limits: the whole body at most the upload limit plus the
form's overhead, at most MAX_PARTS parts), each file handed out in turn as a stream of chunks
that ends only once its part has arrived whole."""

from __future__ import annotations

from collections.abc import AsyncIterator

from werkzeug.sansio.multipart import Data, Epilogue, Field, File

from bff.errors import ApiError
from bff.files.multipart import INCOMPLETE, MAX_PARTS, NO_FILE, ONE_FILE, FilePart, UploadForm

TOO_MANY = f"Send at most {MAX_PARTS} files in one batch."
UNREAD = "Each file of the batch must be read before the next."


class BatchForm(UploadForm):
    """A multipart form of several files (text fields between them are ignored)."""

    async def _event(self) -> object:
        try:
            return await self._next_event()
        except ApiError as refusal:
            if refusal.message == ONE_FILE:  # the decoder's limit on parts
                raise ApiError(400, TOO_MANY) from None
            raise

    async def _file_chunks(self, done: list[bool]) -> AsyncIterator[bytes]:
        while True:
            event = await self._event()
            if not isinstance(event, Data):
                raise ApiError(400, INCOMPLETE)
            self.size += len(event.data)
            if event.data:
                yield event.data
            if not event.more_data:
                done.append(True)
                return

    async def files(self) -> AsyncIterator[tuple[FilePart, AsyncIterator[bytes]]]:
        """Each file part with its chunks, in order; the caller reads each file's chunks to
        their end before asking for the next. 400 when the form holds no file."""
        count = 0
        while True:
            event = await self._event()
            if isinstance(event, Epilogue):
                if count == 0:
                    raise ApiError(400, NO_FILE)
                return
            if isinstance(event, Field):
                await self._field_value()
            elif isinstance(event, File):
                count += 1
                done: list[bool] = []
                yield (
                    FilePart(event.filename, event.headers.get("content-type")),
                    (self._file_chunks(done)),
                )
                if not done:
                    raise ApiError(400, UNREAD)
