"""Uploads: one streamed multipart form read and decided: a profile image, an RTF (kept, and
converted to text) or a file as it is, then stored, indexed, audited and announced the way
bff/files/storing.py stores every file (staged, then moved to its name in the transaction that
indexes it: a failed or crashed upload leaves nothing anyone can see).

Whether an existing file may be replaced is decided by the index once the whole form has been
read (`overwrite` may come in the query string or as a field before or after the file), and
again under lock when the upload commits; a client that says the file is a profile image only
after it is told so at the form's end, and the kept bytes are stored as the profile image.
"""

from __future__ import annotations

import unicodedata
from collections.abc import AsyncIterator

from bff.audit.service import Actor
from bff.containers.models import Folder
from bff.errors import ApiError
from bff.files import repository, storing
from bff.files.conversions import conversion, rtf_too_large
from bff.files.images import INVALID_IMAGE
from bff.files.multipart import FIELDS_FIRST, FORM_OVERHEAD, UploadForm
from bff.files.names import (
    PROFILE_IMAGE_NAME,
    PROFILE_NAME_RESERVED,
    RTF_NAME_TOO_LONG,
    extension_of,
    given_file_name,
    original_rtf_key,
    text_name_for,
)
from bff.files.schemas import ProfileImageProcessing, RtfConversion, UploadResponse
from bff.files.service import blob_out, may_see
from bff.jobs import repository as jobs_repository
from bff.scan.service import HELD
from storage.base import MAX_NAME_BYTES, Storage

PROFILE_IMAGE_LIMIT = 10 * 1024 * 1024
PROFILE_TOO_LARGE = "Profile image must be less than 10MB"
_IMAGE_MAGIC = (b"\xff\xd8\xff", b"\x89PNG", b"GIF8", b"BM")


def too_large(max_bytes: int) -> str:
    """The message of a 413 for a file over the upload limit."""
    return f"The file is too large. The limit is {max_bytes // (1024 * 1024)}MB."


def check_declared_size(content_length: int | None, max_bytes: int) -> None:
    """413 at once for a request that says it is larger than any upload may be."""
    if (content_length or 0) > max_bytes + FORM_OVERHEAD:
        raise ApiError(413, too_large(max_bytes))


async def _collect(chunks: AsyncIterator[bytes], limit: int, too_large: str) -> bytes:
    """The whole of chunks in memory; a 413 as soon as they exceed limit."""
    data = bytearray()
    async for chunk in chunks:
        data += chunk
        if len(data) > limit:
            raise ApiError(413, too_large)
    return bytes(data)


def _flag(fields: dict[str, str], name: str) -> bool:
    return fields.get(name, "").strip().lower() == "true"


class _LateProfile(Exception):
    """isProfileImage 'true' arrived after the file. Raised from the form's final check, it
    aborts the storage write of the file as it is (nothing of it is stored); the upload then
    stores the kept bytes as the profile image instead."""

    def __init__(self, data: bytes) -> None:
        super().__init__("profile image")
        self.data = data


class _ImageTee:
    """Keeps an upload's bytes while they could still be a profile image (at most 10MB).

    Clients that send isProfileImage after the file are told only at the end of the form that
    the file was a profile image; this copy lets the upload switch without a second request.
    """

    def __init__(self) -> None:
        self._data: bytearray | None = bytearray()
        self._refusal = ApiError(400, INVALID_IMAGE)

    def _drop(self, refusal: ApiError) -> None:
        self._data, self._refusal = None, refusal

    async def tee(self, chunks: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
        """Pass chunks through, keeping a copy while it may be a profile image."""
        async for chunk in chunks:
            if self._data is not None:
                self._data += chunk
                head = bytes(self._data[:12])
                if len(self._data) > PROFILE_IMAGE_LIMIT:
                    self._drop(ApiError(413, PROFILE_TOO_LARGE))
                elif len(head) == 12 and not (
                    head.startswith(_IMAGE_MAGIC) or (head[:4], head[8:]) == (b"RIFF", b"WEBP")
                ):
                    self._drop(ApiError(400, INVALID_IMAGE))
            yield chunk

    def data(self) -> bytes:
        """The kept bytes, or the reason they cannot be a profile image."""
        if self._data is None:
            raise self._refusal
        return bytes(self._data)


async def upload(
    folder: Folder,
    form: UploadForm,
    *,
    max_bytes: int,
    rtf_max_bytes: int,
    overwrite: bool,
    actor: Actor,
    storage: Storage,
) -> UploadResponse:
    """Store one uploaded file: a profile image, an RTF (kept, and converted) or any other file."""
    part = await form.start()
    name = given_file_name(part.fields.get("filename") or part.filename)
    profile_declared = "isProfileImage" in part.fields
    is_profile = _flag(part.fields, "isProfileImage")
    kept = None if profile_declared else _ImageTee()
    target = PROFILE_IMAGE_NAME if is_profile else name
    is_rtf = not is_profile and extension_of(name) == "rtf"
    if is_rtf:
        target = text_name_for(name)
        if len(original_rtf_key(name).encode()) > MAX_NAME_BYTES:
            raise ApiError(400, RTF_NAME_TOO_LONG)
    await storing.one_spelling(folder, target, actor)
    may_replace = is_profile or overwrite or _flag(part.fields, "overwrite")

    async def before_end(trailing: dict[str, str]) -> None:
        nonlocal may_replace
        late_name = trailing.get("filename", "").strip()
        if late_name and unicodedata.normalize("NFC", late_name) != name:
            raise ApiError(400, FIELDS_FIRST)
        if _flag(trailing, "isProfileImage") and not is_profile:
            if kept is None:
                raise ApiError(400, FIELDS_FIRST)
            raise _LateProfile(kept.data())
        if not is_profile and name == PROFILE_IMAGE_NAME:
            raise ApiError(400, PROFILE_NAME_RESERVED)
        may_replace = may_replace or _flag(trailing, "overwrite")
        # The index decides: a name only an unfinished (or crashed) upload holds is free.
        # A held file the actor may not see is not there for them (may_see).
        there = None if may_replace else await repository.file_named(folder.id, target)
        if there is not None and may_see(there.scan_state, actor):
            raise storing.clash(target)

    try:
        if is_profile:
            with conversion() as converting:
                data = await form.read(PROFILE_IMAGE_LIMIT, PROFILE_TOO_LARGE, before_end)
                row, replaced = await storing.store_profile(
                    folder, data, storage, actor, converting
                )
            message = f"Profile image processed and saved as {PROFILE_IMAGE_NAME}"
        else:
            chunks = form.chunks(max_bytes, too_large(max_bytes), before_end)
            if kept is not None:
                chunks = kept.tee(chunks)
            if is_rtf:
                with conversion() as converting:
                    data = await _collect(chunks, rtf_max_bytes, rtf_too_large(rtf_max_bytes))
                    row, replaced = await storing.store_rtf(
                        folder, name, data, storage, actor, converting, may_replace=may_replace
                    )
                message = f"RTF file converted and saved as {target}"
            else:
                row, replaced = await storing.store_plain(
                    folder,
                    name,
                    chunks,
                    part.content_type,
                    storage,
                    actor,
                    may_replace=lambda: may_replace,
                )
                message = "File uploaded successfully"
    except _LateProfile as late:
        is_profile, target = True, PROFILE_IMAGE_NAME
        with conversion() as converting:
            row, replaced = await storing.store_profile(
                folder, late.data, storage, actor, converting
            )
        message = f"Profile image processed and saved as {PROFILE_IMAGE_NAME}"
    return UploadResponse(
        message=message,
        blob=blob_out(
            row,
            # a held content it replaced is not counted for those who may not see it
            await repository.earlier_version_count(folder.id, row.name, held=may_see(HELD, actor)),
            await jobs_repository.states_of(row.id),
        ),
        replaced=replaced,
        rtfConversion=RtfConversion(
            converted=row.converted_from_rtf, txtFileName=target if row.converted_from_rtf else None
        ),
        profileImageProcessing=ProfileImageProcessing(standardName=target if is_profile else None),
    )
