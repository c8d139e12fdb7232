"""Uploads: one streamed file stored as a profile image, an RTF (kept, and converted to text)
or as it is, then indexed, audited and announced.

Bytes are written to the storage's staging area first, under a pending upload recorded in the
database, and moved to their name inside the transaction that indexes them (bff/files/staging.py):
a file is visible exactly when its index row is, and a failed or crashed upload leaves nothing
anyone can see. Whether an existing file may be replaced is decided by the index once the whole
form has been read (`overwrite` may come in the query string or as a field before or after the
file), and again under lock when the upload commits.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from bff.audit.service import Actor, record
from bff.containers.models import Folder
from bff.db import transaction
from bff.errors import ApiError
from bff.files import repository, staging, versions
from bff.files.conversions import Conversion, conversion, rtf_too_large
from bff.files.images import INVALID_IMAGE
from bff.files.models import PendingUpload, StoredFile
from bff.files.multipart import FIELDS_FIRST, FORM_OVERHEAD, UploadForm
from bff.files.names import (
    PROFILE_IMAGE_NAME,
    PROFILE_NAME_RESERVED,
    RTF_NAME_TOO_LONG,
    TEXT_CONTENT_TYPE,
    content_type_for,
    extension_of,
    file_name_error,
    new_id,
    original_rtf_key,
    text_name_for,
)
from bff.files.schemas import ProfileImageProcessing, RtfConversion, UploadResponse
from bff.files.service import announce, blob_out, drop_original
from bff.live.events import FILE_UPLOADED, PROFILE_CHANGED
from storage.base import MAX_NAME_BYTES, Storage

PROFILE_IMAGE_LIMIT = 10 * 1024 * 1024
PROFILE_TOO_LARGE = "Profile image must be less than 10MB"
UPLOAD_EXPIRED = "The upload was interrupted and discarded. Upload the file again."
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
    folder: Folder,
    stored: _Stored,
    pending: list[PendingUpload],
    storage: Storage,
    actor: Actor,
    operation: str,
    may_replace: bool,
) -> tuple[StoredFile, bool]:
    """Move the staged objects to their names and index the file, in one transaction (audited
    and announced); then drop the kept original of a converted RTF it replaced. Returns the
    row and whether it replaced a file."""
    container = folder.container.name
    try:
        async with transaction() as conn:
            await staging.claim(conn, pending, folder.id)
            previous = await repository.locked_file(conn, folder.id, stored.name)
            if previous is not None and not may_replace:
                raise _clash(stored.name)  # another upload of the name committed first
            now = datetime.now(UTC)
            if previous is not None:
                # The old content becomes a version before the new bytes move over the name:
                # a crash between the two leaves both (bff/files/versions.py).
                await versions.keep_current(conn, storage, folder, previous, actor, now)
            await staging.publish(conn, storage, pending)
            info = await storage.stat(container, folder.name, stored.name)
            values = {
                "content_type": stored.content_type,
                "size": info.size,
                "last_modified": info.last_modified,
                "extension": extension_of(stored.name),
                "is_profile_image": stored.is_profile_image,
                "converted_from_rtf": stored.original_rtf_name is not None,
                "original_rtf_name": stored.original_rtf_name,
                "version_id": new_id(now),
                "uploaded_by_name": actor.name,
                "uploaded_by_role": actor.role,
            }
            stale_original = previous.original_rtf_name if previous else None
            if previous is None:
                row = await repository.create_file(conn, folder, stored.name, values)
            else:
                await repository.update_file(conn, previous, values)
                row = previous
            event = PROFILE_CHANGED if stored.is_profile_image else FILE_UPLOADED
            announce(event, folder, stored.name)
            original = stored.original_rtf_name
            details = f"converted from {original}" if original else ""
            await record(
                conn,
                actor,
                operation,
                container=container,
                folder=folder.name,
                blob=stored.name,
                details=details + (" (replaced)" if previous else ""),
            )
    except staging.UploadExpired:
        raise ApiError(503, UPLOAD_EXPIRED) from None
    staging.crash_point("after_commit")
    if stale_original not in (None, stored.original_rtf_name):
        await drop_original(storage, folder, stale_original)
    return row, previous is not None


async def _stage_and_index(
    folder: Folder,
    objects: list[tuple[str, AsyncIterator[bytes], str]],
    stored: _Stored,
    storage: Storage,
    actor: Actor,
    operation: str,
    may_replace: Callable[[], bool],
) -> tuple[StoredFile, bool]:
    """Write objects (name, bytes, content type) to the staging area under a pending upload,
    then index them; whatever fails before the commit leaves nothing (bff/files/staging.py).
    may_replace is asked once the bytes are in (the form may say so after the file)."""
    pending = await staging.begin(folder.container.name, folder.name, [o[0] for o in objects])
    committed = False
    try:
        async with staging.heartbeat(pending):
            for row, (_, chunks, content_type) in zip(pending, objects, strict=True):
                await storage.write_staged(
                    row.staging_key, staging.watched(chunks), content_type=content_type
                )
        staging.crash_point("after_write")
        result = await _index(folder, stored, pending, storage, actor, operation, may_replace())
        committed = True
    finally:
        if not committed:
            await staging.abandon(storage, pending)
    return result


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
    may_replace = is_profile or overwrite or _flag(part.fields, "overwrite")

    async def before_end(trailing: dict[str, str]) -> None:
        nonlocal may_replace
        if trailing.get("filename", "").strip() not in ("", name):
            raise ApiError(400, FIELDS_FIRST)
        if _flag(trailing, "isProfileImage") and not is_profile:
            if kept is None:
                raise ApiError(400, FIELDS_FIRST)
            raise _LateProfile(kept.data())
        if not is_profile and name == PROFILE_IMAGE_NAME:
            raise ApiError(400, PROFILE_NAME_RESERVED)
        may_replace = may_replace or _flag(trailing, "overwrite")
        # The index decides: a name only an unfinished (or crashed) upload holds is free.
        if not may_replace and await repository.file_named(folder.id, target) is not None:
            raise _clash(target)

    try:
        if is_profile:
            with conversion() as converting:
                data = await form.read(PROFILE_IMAGE_LIMIT, PROFILE_TOO_LARGE, before_end)
                row, replaced = await _store_profile(folder, data, storage, actor, converting)
            message = f"Profile image processed and saved as {PROFILE_IMAGE_NAME}"
        else:
            chunks = form.chunks(max_bytes, too_large(max_bytes), before_end)
            if kept is not None:
                chunks = kept.tee(chunks)
            if is_rtf:
                with conversion() as converting:
                    data = await _collect(chunks, rtf_max_bytes, rtf_too_large(rtf_max_bytes))
                    row, replaced = await _store_rtf(
                        folder, name, data, storage, actor, converting, may_replace=may_replace
                    )
                message = f"RTF file converted and saved as {target}"
            else:
                row, replaced = await _store_plain(
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
            row, replaced = await _store_profile(folder, late.data, storage, actor, converting)
        message = f"Profile image processed and saved as {PROFILE_IMAGE_NAME}"
    return UploadResponse(
        message=message,
        blob=blob_out(row, await repository.earlier_version_count(folder.id, row.name)),
        replaced=replaced,
        rtfConversion=RtfConversion(
            converted=row.converted_from_rtf, txtFileName=target if row.converted_from_rtf else None
        ),
        profileImageProcessing=ProfileImageProcessing(standardName=target if is_profile else None),
    )


def _always() -> bool:
    return True


async def _store_plain(
    folder: Folder,
    name: str,
    chunks: AsyncIterator[bytes],
    declared_type: str | None,
    storage: Storage,
    actor: Actor,
    *,
    may_replace: Callable[[], bool] = _always,
) -> tuple[StoredFile, bool]:
    """Store a file as it is, typed by its name (or as declared)."""
    content_type = content_type_for(name, declared_type)
    stored = _Stored(name, content_type)
    objects = [(name, chunks, content_type)]
    return await _stage_and_index(
        folder, objects, stored, storage, actor, "file_upload", may_replace
    )


async def _store_profile(
    folder: Folder, data: bytes, storage: Storage, actor: Actor, converting: Conversion
) -> tuple[StoredFile, bool]:
    """Process an image into the folder's profile image (replacing any previous one)."""
    jpeg = await converting.profile_jpeg(data)
    stored = _Stored(PROFILE_IMAGE_NAME, "image/jpeg", is_profile_image=True)
    objects = [(PROFILE_IMAGE_NAME, _once(jpeg), "image/jpeg")]
    return await _stage_and_index(
        folder, objects, stored, storage, actor, "profile_upload", _always
    )


async def _store_rtf(
    folder: Folder,
    name: str,
    data: bytes,
    storage: Storage,
    actor: Actor,
    converting: Conversion,
    *,
    may_replace: bool = True,
) -> tuple[StoredFile, bool]:
    """Keep an RTF's original bytes and list its text as {basename}.txt."""
    text = await converting.rtf_text(data)  # before anything is written: a refusal stores nothing
    target = text_name_for(name)
    objects = [
        (original_rtf_key(name), _once(data), "application/rtf"),
        (target, _once(text.encode()), TEXT_CONTENT_TYPE),
    ]
    stored = _Stored(target, TEXT_CONTENT_TYPE, original_rtf_name=name)
    return await _stage_and_index(
        folder, objects, stored, storage, actor, "file_upload", lambda: may_replace
    )


async def store_file(
    folder: Folder, name: str, data: bytes, *, storage: Storage, actor: Actor, profile: bool = False
) -> StoredFile:
    """Store small in-memory content the way an upload would (the demo and tools use this)."""
    if error := file_name_error(name):
        raise ApiError(400, error)
    if profile:
        with conversion() as converting:
            return (await _store_profile(folder, data, storage, actor, converting))[0]
    if extension_of(name) == "rtf":
        with conversion() as converting:
            return (await _store_rtf(folder, name, data, storage, actor, converting))[0]
    return (await _store_plain(folder, name, _once(data), None, storage, actor))[0]
