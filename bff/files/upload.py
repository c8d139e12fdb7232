"""Uploads: one streamed file stored as a profile image, an RTF (kept, and converted to text)
or as it is, then indexed, audited and announced.

Bytes are written first and indexed second, so an index row never names a file that is not
whole. Whether an existing file may be replaced is decided once the whole form has been read
(`overwrite` may come in the query string or as a field before or after the file), just before
the new bytes become visible.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass

from bff.audit.service import Actor, record
from bff.containers.models import Folder
from bff.db import transaction
from bff.errors import ApiError
from bff.files import repository
from bff.files.conversions import Conversion, conversion, rtf_too_large
from bff.files.images import INVALID_IMAGE
from bff.files.models import StoredFile
from bff.files.multipart import FIELDS_FIRST, FORM_OVERHEAD, UploadForm
from bff.files.names import (
    PROFILE_IMAGE_NAME,
    PROFILE_NAME_RESERVED,
    RTF_NAME_TOO_LONG,
    TEXT_CONTENT_TYPE,
    content_type_for,
    extension_of,
    file_name_error,
    original_rtf_key,
    text_name_for,
)
from bff.files.schemas import ProfileImageProcessing, RtfConversion, UploadResponse
from bff.files.service import announce, blob_out, drop_original
from bff.live.events import FILE_UPLOADED, PROFILE_CHANGED
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


@dataclass
class _Stored:
    """What an upload put in storage, to be indexed."""

    name: str
    content_type: str
    is_profile_image: bool = False
    original_rtf_name: str | None = None


async def _index(
    folder: Folder, stored: _Stored, storage: Storage, actor: Actor, operation: str
) -> StoredFile:
    """Index a file just written (audited and announced), then drop the kept original of a
    converted RTF it replaced."""
    info = await storage.stat(folder.container.name, folder.name, stored.name)
    values = {
        "content_type": stored.content_type,
        "size": info.size,
        "last_modified": info.last_modified,
        "extension": extension_of(stored.name),
        "is_profile_image": stored.is_profile_image,
        "converted_from_rtf": stored.original_rtf_name is not None,
        "original_rtf_name": stored.original_rtf_name,
    }
    async with transaction() as conn:
        previous = await repository.locked_file(conn, folder.id, stored.name)
        stale_original = previous.original_rtf_name if previous else None
        if previous is None:
            row = await repository.create_file(conn, folder, stored.name, values)
        else:
            await repository.update_file(conn, previous, values)
            row = previous
        announce(PROFILE_CHANGED if stored.is_profile_image else FILE_UPLOADED, folder, stored.name)
        details = f"converted from {stored.original_rtf_name}" if stored.original_rtf_name else ""
        await record(
            conn,
            actor,
            operation,
            container=folder.container.name,
            folder=folder.name,
            blob=stored.name,
            details=details + (" (replaced)" if previous else ""),
        )
    if stale_original != stored.original_rtf_name:
        await drop_original(storage, folder, stale_original)
    return row


async def _once(data: bytes) -> AsyncIterator[bytes]:
    yield data


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


def _clash(name: str) -> ApiError:
    return ApiError(
        409,
        f"A file named '{name}' already exists in this folder. "
        "Upload again with overwrite to replace it.",
    )


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
    name = (part.fields.get("filename") or part.filename).strip()
    if error := file_name_error(name):
        raise ApiError(400, error)
    profile_declared = "isProfileImage" in part.fields
    is_profile = _flag(part.fields, "isProfileImage")
    kept = None if profile_declared else _ImageTee()
    target = PROFILE_IMAGE_NAME if is_profile else name
    is_rtf = not is_profile and extension_of(name) == "rtf"
    if is_rtf:
        target = text_name_for(name)
        if len(original_rtf_key(name).encode()) > MAX_NAME_BYTES:
            raise ApiError(400, RTF_NAME_TOO_LONG)
    replaced = False

    async def before_end(trailing: dict[str, str]) -> None:
        nonlocal replaced
        if trailing.get("filename", "").strip() not in ("", name):
            raise ApiError(400, FIELDS_FIRST)
        if _flag(trailing, "isProfileImage") and not is_profile:
            if kept is None:
                raise ApiError(400, FIELDS_FIRST)
            raise _LateProfile(kept.data())
        if not is_profile and name == PROFILE_IMAGE_NAME:
            raise ApiError(400, PROFILE_NAME_RESERVED)
        replaced = await storage.exists(folder.container.name, folder.name, target)
        allowed = is_profile or overwrite or _flag(part.fields, "overwrite")
        if replaced and not (allowed or _flag(trailing, "overwrite")):
            raise _clash(target)

    try:
        if is_profile:
            with conversion() as converting:
                data = await form.read(PROFILE_IMAGE_LIMIT, PROFILE_TOO_LARGE, before_end)
                row = await _store_profile(folder, data, storage, actor, converting)
            message = f"Profile image processed and saved as {PROFILE_IMAGE_NAME}"
        else:
            chunks = form.chunks(max_bytes, too_large(max_bytes), before_end)
            if kept is not None:
                chunks = kept.tee(chunks)
            if is_rtf:
                with conversion() as converting:
                    data = await _collect(chunks, rtf_max_bytes, rtf_too_large(rtf_max_bytes))
                    row = await _store_rtf(folder, name, data, storage, actor, converting)
                message = f"RTF file converted and saved as {target}"
            else:
                row = await _store_plain(folder, name, chunks, part.content_type, storage, actor)
                message = "File uploaded successfully"
    except _LateProfile as late:
        is_profile, target = True, PROFILE_IMAGE_NAME
        replaced = await storage.exists(folder.container.name, folder.name, target)
        with conversion() as converting:
            row = await _store_profile(folder, late.data, storage, actor, converting)
        message = f"Profile image processed and saved as {PROFILE_IMAGE_NAME}"
    return UploadResponse(
        message=message,
        blob=blob_out(row),
        replaced=replaced,
        rtfConversion=RtfConversion(
            converted=row.converted_from_rtf, txtFileName=target if row.converted_from_rtf else None
        ),
        profileImageProcessing=ProfileImageProcessing(standardName=target if is_profile else None),
    )


async def _store_plain(
    folder: Folder,
    name: str,
    chunks: AsyncIterator[bytes],
    declared_type: str | None,
    storage: Storage,
    actor: Actor,
) -> StoredFile:
    """Store a file as it is, typed by its name (or as declared)."""
    content_type = content_type_for(name, declared_type)
    await storage.write(folder.container.name, folder.name, name, chunks, content_type=content_type)
    return await _index(folder, _Stored(name, content_type), storage, actor, "file_upload")


async def _store_profile(
    folder: Folder, data: bytes, storage: Storage, actor: Actor, converting: Conversion
) -> StoredFile:
    """Process an image into the folder's profile image (replacing any previous one)."""
    jpeg = await converting.profile_jpeg(data)
    await storage.write(
        folder.container.name,
        folder.name,
        PROFILE_IMAGE_NAME,
        _once(jpeg),
        content_type="image/jpeg",
    )
    stored = _Stored(PROFILE_IMAGE_NAME, "image/jpeg", is_profile_image=True)
    return await _index(folder, stored, storage, actor, "profile_upload")


async def _store_rtf(
    folder: Folder, name: str, data: bytes, storage: Storage, actor: Actor, converting: Conversion
) -> StoredFile:
    """Keep an RTF's original bytes and list its text as {basename}.txt."""
    text = await converting.rtf_text(data)  # before anything is written: a refusal stores nothing
    target = text_name_for(name)
    where = (folder.container.name, folder.name)
    await storage.write(*where, original_rtf_key(name), _once(data), content_type="application/rtf")
    await storage.write(*where, target, _once(text.encode()), content_type=TEXT_CONTENT_TYPE)
    stored = _Stored(target, TEXT_CONTENT_TYPE, original_rtf_name=name)
    return await _index(folder, stored, storage, actor, "file_upload")


async def store_file(
    folder: Folder, name: str, data: bytes, *, storage: Storage, actor: Actor, profile: bool = False
) -> StoredFile:
    """Store small in-memory content the way an upload would (the demo and tools use this)."""
    if error := file_name_error(name):
        raise ApiError(400, error)
    if profile:
        with conversion() as converting:
            return await _store_profile(folder, data, storage, actor, converting)
    if extension_of(name) == "rtf":
        with conversion() as converting:
            return await _store_rtf(folder, name, data, storage, actor, converting)
    return await _store_plain(folder, name, _once(data), None, storage, actor)
