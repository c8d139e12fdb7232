"""Storing a file the way every upload does: its bytes written to the storage's staging area
under a pending upload, then moved to their name inside the transaction that indexes them,
audits and announces them (bff/files/staging.py); whatever fails before the commit leaves
nothing anyone can see. A profile image, an RTF (kept, and its text listed) or any other file;
the demo and tools store small in-memory content through `store_file`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from tortoise.backends.base.client import BaseDBAsyncClient

from bff.audit.service import Actor, record
from bff.containers.models import Folder
from bff.db import transaction
from bff.errors import ApiError
from bff.files import removals, repository, staging, versions
from bff.files.conversions import Conversion, conversion
from bff.files.models import PendingUpload, StoredFile
from bff.files.names import (
    PROFILE_IMAGE_NAME,
    TEXT_CONTENT_TYPE,
    content_type_for,
    extension_of,
    folder_key,
    given_file_name,
    new_id,
    original_rtf_key,
    text_name_for,
)
from bff.files.screening import Screened, Screening
from bff.files.service import announce, may_see
from bff.jobs import service as jobs
from bff.live.events import FILE_UPLOADED, PROFILE_CHANGED
from bff.naming import other_spellings
from bff.scan.service import HELD
from storage.base import ObjectKey, Storage

UPLOAD_EXPIRED = "The upload was interrupted and discarded. Upload the file again."

# A step of another change that must commit with the file or not at all (the intake's item
# marked filed: bff/intake/service.py), run first in the file's transaction (its connection);
# what it returns is added to the audit entry's details; it may raise to refuse the file.
Within = Callable[[BaseDBAsyncClient], Awaitable[str]]


@dataclass
class _Stored:
    """What an upload put in storage, to be indexed."""

    name: str
    content_type: str
    is_profile_image: bool = False
    original_rtf_name: str | None = None
    # Where the content came from when not uploaded to the folder (bff/files/sources.py).
    source: dict[str, Any] | None = None


async def _index(
    folder: Folder,
    stored: _Stored,
    pending: list[PendingUpload],
    storage: Storage,
    actor: Actor,
    operation: str,
    may_replace: bool,
    screened: Screened,
    within: Within | None = None,
) -> tuple[StoredFile, bool]:
    """Move the staged objects to their names and index the file, in one transaction (audited
    and announced); then drop the kept original of a converted RTF it replaced. Returns the
    row and whether it replaced a file."""
    container = folder.container.name
    try:
        async with transaction() as conn:
            await staging.claim(conn, pending, folder.id)
            also = await within(conn) if within is not None else ""
            previous = await repository.locked_file(conn, folder.id, stored.name)
            # A held file the actor may not see is as if it were not there (its name is not
            # revealed): the upload replaces it and it stays an earlier version, still held.
            seen = previous is not None and may_see(previous.scan_state, actor)
            if seen and not may_replace:
                raise clash(stored.name)  # another upload of the name committed first
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
                "source": stored.source,  # a new content: an upload's is none
                "scan_tried_at": None,  # a new content: no failed rescan of it yet
                **screened.values(),
            }
            stale_original = previous.original_rtf_name if previous else None
            leftovers: list[ObjectKey] = []
            if stale_original not in (None, stored.original_rtf_name):
                # The replaced RTF text's kept original: removed after the commit.
                leftovers.append(folder_key(folder).child(original_rtf_key(str(stale_original))))
            if previous is not None:  # the replaced content's thumbnail goes with it
                leftovers.append(versions.thumbnail_of(folder, previous))
            leftover_ids = await removals.defer(conn, folder.id, leftovers)
            if previous is None:
                row = await repository.create_file(conn, folder, stored.name, values)
            else:
                await repository.update_file(conn, previous, values)
                row = previous
            await jobs.file_changed(conn, row)  # its text for search, read in the background
            event = PROFILE_CHANGED if stored.is_profile_image else FILE_UPLOADED
            announce(event, folder, stored.name, scan_state=row.scan_state)
            original = stored.original_rtf_name
            details = f"converted from {original}" if original else also
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
    await removals.carry_out(storage, folder, leftover_ids)
    return row, seen


async def _stage_and_index(
    folder: Folder,
    objects: list[tuple[str, AsyncIterator[bytes], str]],
    stored: _Stored,
    storage: Storage,
    actor: Actor,
    operation: str,
    may_replace: Callable[[], bool],
    screening: Screening,
    within: Within | None = None,
) -> tuple[StoredFile, bool]:
    """Write objects (name, bytes, content type) to the staging area under a pending upload,
    the first one screened on its way (bff/files/screening.py), then index them; whatever fails
    before the commit leaves nothing (bff/files/staging.py). may_replace is asked once the
    bytes are in (the form may say so after the file)."""
    pending = await staging.begin(folder.container.name, folder.name, [o[0] for o in objects])
    committed = False
    async with staging.tracked(pending):  # a shutdown abandons it too (staging.settle)
        try:
            async with staging.heartbeat(pending):
                for index, (row, (_, chunks, content_type)) in enumerate(
                    zip(pending, objects, strict=True)
                ):
                    if index == 0:
                        chunks = screening.watch(chunks)
                    await storage.write_staged(
                        row.staging_key, staging.watched(chunks), content_type=content_type
                    )
                screened = await screening.verdict(storage, pending[0].staging_key, folder, actor)
            staging.crash_point("after_write")
            result = await _index(
                folder, stored, pending, storage, actor, operation, may_replace(), screened, within
            )
            committed = True
        finally:
            if not committed:
                await staging.abandon(storage, pending)
    return result


async def _once(data: bytes) -> AsyncIterator[bytes]:
    yield data


def clash(name: str) -> ApiError:
    return ApiError(
        409,
        f"A file named '{name}' already exists in this folder. "
        "Upload again with overwrite to replace it.",
    )


async def one_spelling(folder: Folder, name: str, actor: Actor) -> None:
    """409 when the folder holds name under another spelling of the same letters: a file
    stored before names were kept in NFC (decomposed 'café.txt' beside a new composed one).
    A held file actor may not see is not there for them (`may_see`): their upload is stored
    under its own spelling beside it, rather than refused with its name."""
    other = await repository.file_spelt(folder.id, other_spellings(name), held=may_see(HELD, actor))
    if other is not None:
        raise ApiError(
            409,
            f"A file named '{name}' is already in this folder, spelt with other Unicode "
            "characters (stored before names were normalised). Delete it first to replace it.",
        )


def _always() -> bool:
    return True


async def store_plain(
    folder: Folder,
    name: str,
    chunks: AsyncIterator[bytes],
    declared_type: str | None,
    storage: Storage,
    actor: Actor,
    *,
    may_replace: Callable[[], bool] = _always,
    operation: str = "file_upload",
    within: Within | None = None,
    source: dict[str, Any] | None = None,
) -> tuple[StoredFile, bool]:
    """Store a file as it is, typed by its name (or as declared); audited as operation (the
    intake's filing: `intake_filed`, with its `source`), with `within` committed with it."""
    content_type = content_type_for(name, declared_type)
    stored = _Stored(name, content_type, source=source)
    objects = [(name, chunks, content_type)]
    screening = Screening(name, content_type)
    return await _stage_and_index(
        folder, objects, stored, storage, actor, operation, may_replace, screening, within
    )


async def store_profile(
    folder: Folder, data: bytes, storage: Storage, actor: Actor, converting: Conversion
) -> tuple[StoredFile, bool]:
    """Process an image into the folder's profile image (replacing any previous one)."""
    jpeg = await converting.profile_jpeg(data)
    stored = _Stored(PROFILE_IMAGE_NAME, "image/jpeg", is_profile_image=True)
    objects = [(PROFILE_IMAGE_NAME, _once(jpeg), "image/jpeg")]
    screening = Screening(PROFILE_IMAGE_NAME, "image/jpeg", checked=False)  # the portal's JPEG
    return await _stage_and_index(
        folder, objects, stored, storage, actor, "profile_upload", _always, screening
    )


async def store_rtf(
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
    screening = Screening(name, "application/rtf")  # the RTF's original, as it came
    return await _stage_and_index(
        folder, objects, stored, storage, actor, "file_upload", lambda: may_replace, screening
    )


async def store_file(
    folder: Folder, name: str, data: bytes, *, storage: Storage, actor: Actor, profile: bool = False
) -> StoredFile:
    """Store small in-memory content the way an upload would (the demo and tools use this)."""
    name = given_file_name(name)
    if not profile:
        target = text_name_for(name) if extension_of(name) == "rtf" else name
        await one_spelling(folder, target, actor)
    if profile:
        with conversion() as converting:
            return (await store_profile(folder, data, storage, actor, converting))[0]
    if extension_of(name) == "rtf":
        with conversion() as converting:
            return (await store_rtf(folder, name, data, storage, actor, converting))[0]
    return (await store_plain(folder, name, _once(data), None, storage, actor))[0]
