"""Conversions of uploads, run in the app's worker pool (bff/workers.py) so that neither a slow
RTF nor a huge image holds the server's core or memory: a profile image becomes a 150x150 JPEG
(bff/files/images.py), an RTF becomes text (bff/files/rtf.py).

Each refusal is an ApiError a person can read: 400 for an image that cannot or must not be
decoded, 422 for an RTF that is not one or that took longer than BFF_CONVERSION_SECONDS to
convert (the upload is refused; nothing of it is stored); either needing more memory than
BFF_CONVERSION_MEMORY_MB is refused the same way with its own message; 503 with Retry-After when
BFF_CONVERSION_WORKERS conversions run and BFF_CONVERSION_QUEUE more wait already (checked
before the upload's bytes are read).
Outside a running app (the command line's demo) the work runs in a thread of the caller.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

from bff.errors import ApiError
from bff.files.images import InvalidImage, process_profile_image
from bff.files.rtf import InvalidRtf, convert_rtf
from bff.services import running_services
from bff.workers import Reservation, WorkerBusy, WorkerFailed, WorkerOutOfMemory, WorkerTimeout

T = TypeVar("T")

# What the workers import before their first job, so that it does not count against its time.
WORKER_MODULES = (
    "bff.files.images",
    "bff.files.rtf",
    "bff.files.previews",
    "bff.files.documents",
)
BUSY = "The server is busy converting other files. Please try again in a minute."
BUSY_RETRY_SECONDS = "30"
IMAGE_TOO_SLOW = "This image took too long to process. Please use a smaller or simpler one."
IMAGE_FAILED = "This image could not be processed. Please use a different one."
IMAGE_TOO_MUCH_MEMORY = (
    "This image needs more memory to process than the server allows. Please use a smaller one."
)
RTF_TOO_SLOW = (
    "This RTF document took too long to convert to text, so it was not uploaded. "
    "Please save it as plain text or PDF, or split it, and upload it again."
)
RTF_FAILED = "This RTF document could not be converted to text, so it was not uploaded."
RTF_TOO_MUCH_MEMORY = (
    "This RTF document needs more memory to convert than the server allows, so it was not "
    "uploaded. Please save it as plain text or PDF, or split it, and upload it again."
)


def rtf_too_large(max_bytes: int) -> str:
    """The message of a 413 for an RTF over BFF_RTF_MAX_MB."""
    return (
        f"RTF documents over {max_bytes // (1024 * 1024)}MB cannot be converted to text. "
        "Please save it as plain text or PDF, or split it, and upload it again."
    )


class Conversion:
    """One conversion's place in the worker pool, held from before its upload is read."""

    def __init__(self, place: Reservation | None) -> None:
        self._place = place

    async def _run(self, func: Callable[[bytes], T], data: bytes) -> T:
        if self._place is None:  # outside a running app
            return await asyncio.to_thread(func, data)
        return await self._place.run(func, data)

    async def profile_jpeg(self, data: bytes) -> bytes:
        """The 150x150 JPEG of an uploaded image, or a 400."""
        try:
            return await self._run(process_profile_image, data)
        except InvalidImage as exc:
            raise ApiError(400, str(exc)) from None
        except WorkerTimeout:
            raise ApiError(400, IMAGE_TOO_SLOW) from None
        except WorkerOutOfMemory:
            raise ApiError(400, IMAGE_TOO_MUCH_MEMORY) from None
        except WorkerFailed:
            raise ApiError(400, IMAGE_FAILED) from None

    async def rtf_text(self, data: bytes) -> str:
        """The plain text of an RTF document, or a 422."""
        try:
            return await self._run(convert_rtf, data)
        except InvalidRtf as exc:
            raise ApiError(422, str(exc)) from None
        except WorkerTimeout:
            raise ApiError(422, RTF_TOO_SLOW) from None
        except WorkerOutOfMemory:
            raise ApiError(422, RTF_TOO_MUCH_MEMORY) from None
        except WorkerFailed:
            raise ApiError(422, RTF_FAILED) from None


@contextmanager
def conversion() -> Iterator[Conversion]:
    """A place for one conversion, or a 503 at once when the pool's queue is full: taken before
    an upload's bytes are read, so that uploads beyond the bound are not held in memory."""
    services = running_services()
    if services is None:
        yield Conversion(None)
        return
    try:
        place = services.workers.reserve()
    except WorkerBusy:
        raise ApiError(503, BUSY, {"Retry-After": BUSY_RETRY_SECONDS}) from None
    with place:
        yield Conversion(place)
