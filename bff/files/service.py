"""Patient files: uploads (plain, RTF, profile image), listing, viewing, deletion, the index.

Storage holds the bytes; the `files` table indexes them so listings and statistics never walk
storage. Bytes are written first and indexed second, so an index row never names a file that
is not whole; `reindex` repairs the other direction (files written by other tools, or an index
row left behind by a crash between the two steps).
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

from bff.assignments.access import caller_assignments
from bff.assignments.repository import folder_member_ids
from bff.audit.service import Actor, record, record_alone
from bff.containers.models import Container, Folder
from bff.db import fetch, transaction
from bff.errors import ApiError
from bff.files.images import INVALID_IMAGE, InvalidImage, process_profile_image
from bff.files.models import StoredFile
from bff.files.multipart import FIELDS_FIRST, UploadForm
from bff.files.rtf import InvalidRtf, convert_rtf
from bff.files.schemas import (
    Blob,
    BlobList,
    FolderStats,
    MyStatsResponse,
    ProfileImageProcessing,
    RtfConversion,
    SummaryStats,
    UploadResponse,
)
from bff.live.events import (
    ADMINS,
    FILE_DELETED,
    FILE_UPLOADED,
    PROFILE_CHANGED,
    publish,
    user_room,
)
from bff.naming import container_name_error, folder_name_error, sort_key
from storage.base import (
    MAX_NAME_BYTES,
    FileInfo,
    InvalidName,
    NotFound,
    Storage,
    guess_content_type,
    validate_name,
)

PROFILE_IMAGE_NAME = "patient-profile.jpg"
PROFILE_IMAGE_LIMIT = 10 * 1024 * 1024
PROFILE_TOO_LARGE = "Profile image must be less than 10MB"
# The original bytes of a converted RTF are kept beside its text under this (unlisted) prefix.
RTF_ORIGINAL_PREFIX = ".rtf-original."
FILE_NOT_FOUND = "File not found"
PROFILE_NOT_FOUND = "This folder has no profile image."
DEFAULT_CONTENT_TYPE = "application/octet-stream"
TEXT_CONTENT_TYPE = "text/plain; charset=utf-8"
_CONTENT_TYPE_RE = re.compile(r"[A-Za-z0-9][\w.+-]{0,126}/[A-Za-z0-9][\w.+-]{0,126}")


def extension_of(name: str) -> str:
    """The lower-case extension statistics count a file under; 'none' if it has none."""
    stem, dot, ext = name.rpartition(".")
    if not dot or not stem or not ext or len(ext) > 32 or " " in ext:
        return "none"
    return ext.lower()


def file_name_error(name: str) -> str | None:
    """Why name cannot be a file's name (it could escape the folder, or is reserved), or None."""
    try:
        validate_name(name, "file name")
    except InvalidName as exc:
        return str(exc)
    if name.startswith(RTF_ORIGINAL_PREFIX):
        return f"Invalid file name: it must not start with {RTF_ORIGINAL_PREFIX!r} (reserved)."
    return None


def original_rtf_key(rtf_name: str) -> str:
    """The storage name that keeps a converted RTF's original bytes."""
    return RTF_ORIGINAL_PREFIX + rtf_name


def text_name_for(rtf_name: str) -> str:
    """The listed name of a converted RTF: its base name with .txt."""
    return rtf_name.rpartition(".")[0] + ".txt"


def _content_type(name: str, declared: str | None) -> str:
    guessed = guess_content_type(name)
    if guessed:
        return guessed
    declared = (declared or "").split(";")[0].strip()
    return declared if _CONTENT_TYPE_RE.fullmatch(declared) else DEFAULT_CONTENT_TYPE


def _announce(event: str, folder: Folder, name: str) -> None:
    """Tell admins and the folder's assigned users, worked out when the event is sent."""
    payload = {"container": folder.container.name, "folder": folder.name}
    if name != PROFILE_IMAGE_NAME:
        payload["name"] = name

    async def rooms() -> list[str]:
        return [ADMINS, *(user_room(user_id) for user_id in await folder_member_ids(folder.id))]

    publish(event, payload, rooms)


def blob_out(row: StoredFile) -> Blob:
    """The API shape of an indexed file."""
    return Blob(
        name=row.name,
        contentType=row.content_type,
        contentLength=row.size,
        lastModified=row.last_modified,
        isProfileImage=row.is_profile_image,
        isConvertedFromRtf=row.converted_from_rtf,
        originalRtfFileName=row.original_rtf_name,
    )


async def get_file(folder: Folder, name: str) -> StoredFile:
    """An indexed file of folder, or 404."""
    row = await StoredFile.get_or_none(folder=folder, name=name)
    if row is None:
        raise ApiError(404, PROFILE_NOT_FOUND if name == PROFILE_IMAGE_NAME else FILE_NOT_FOUND)
    return row


async def audit(actor: Actor, operation: str, container: str, folder: str, blob: str = "") -> None:
    """Record an access to a folder's files."""
    await record_alone(actor, operation, container=container, folder=folder, blob=blob)


async def folder_listing(folder_id: int, container: str, folder: str, actor: Actor) -> BlobList:
    """A folder's files sorted by name (audited: file names are patient data)."""
    rows = await StoredFile.filter(folder_id=folder_id).order_by("name")
    await audit(actor, "file_list", container, folder)
    return BlobList(
        blobs=[blob_out(r) for r in rows], hasProfileImage=any(r.is_profile_image for r in rows)
    )


async def list_files(folder: Folder, actor: Actor) -> BlobList:
    """A folder's files as staff see them."""
    return await folder_listing(folder.id, folder.container.name, folder.name, actor)


@dataclass
class _Stored:
    """What an upload put in storage, to be indexed."""

    name: str
    content_type: str
    is_profile_image: bool = False
    original_rtf_name: str | None = None


async def _index(
    folder: Folder, stored: _Stored, storage: Storage, actor: Actor, operation: str
) -> tuple[StoredFile, str | None]:
    """Index a file just written (and audit it); return the row and a replaced RTF original."""
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
        previous = (
            await StoredFile.filter(folder=folder, name=stored.name)
            .using_db(conn)
            .select_for_update()
            .first()
        )
        stale_original = previous.original_rtf_name if previous else None
        if previous is None:
            row = await StoredFile.create(folder=folder, name=stored.name, using_db=conn, **values)
        else:
            row = previous.update_from_dict(values)
            await row.save(using_db=conn)
        event = PROFILE_CHANGED if stored.is_profile_image else FILE_UPLOADED
        _announce(event, folder, stored.name)
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
    if stale_original == stored.original_rtf_name:
        stale_original = None
    return row, stale_original


async def _once(data: bytes) -> AsyncIterator[bytes]:
    yield data


def _too_large(limit: int) -> str:
    return f"The file is too large. The limit is {limit // (1024 * 1024)}MB."


def _clash(name: str) -> ApiError:
    return ApiError(
        409,
        f"A file named '{name}' already exists in this folder. "
        "Upload again with overwrite to replace it.",
    )


class _LateProfile(Exception):
    """isProfileImage 'true' arrived after the file: store the kept bytes as the profile."""

    def __init__(self, data: bytes) -> None:
        super().__init__("profile image")
        self.data = data


_IMAGE_MAGIC = (b"\xff\xd8\xff", b"\x89PNG", b"GIF8", b"BM")


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


async def _collect(chunks: AsyncIterator[bytes]) -> bytes:
    data = bytearray()
    async for chunk in chunks:
        data += chunk
    return bytes(data)


async def upload(
    folder: Folder,
    form: UploadForm,
    *,
    max_bytes: int,
    overwrite: bool,
    actor: Actor,
    storage: Storage,
) -> UploadResponse:
    """Store one uploaded file: a profile image, an RTF (kept, and converted) or any other file.

    Whether an existing file may be replaced is decided once the whole form has been read
    (`overwrite` may come in the query string or as a field before or after the file), just
    before the new bytes become visible.
    """
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
            raise ApiError(400, "Invalid file name: it is too long to keep the original RTF.")
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
            raise ApiError(
                400, f"'{PROFILE_IMAGE_NAME}' is kept for the patient's profile image. Rename it."
            )
        replaced = await storage.exists(folder.container.name, folder.name, target)
        allowed = is_profile or overwrite or _flag(part.fields, "overwrite")
        if replaced and not (allowed or _flag(trailing, "overwrite")):
            raise _clash(target)

    try:
        if is_profile:
            data = await form.read(PROFILE_IMAGE_LIMIT, PROFILE_TOO_LARGE, before_end)
            row = await _store_profile(folder, data, storage, actor)
            message = f"Profile image processed and saved as {PROFILE_IMAGE_NAME}"
        else:
            chunks = form.chunks(max_bytes, _too_large(max_bytes), before_end)
            if kept is not None:
                chunks = kept.tee(chunks)
            if is_rtf:
                row = await _store_rtf(folder, name, await _collect(chunks), storage, actor)
                message = f"RTF file converted and saved as {target}"
            else:
                content_type = _content_type(name, part.content_type)
                await storage.write(
                    folder.container.name, folder.name, name, chunks, content_type=content_type
                )
                stored = _Stored(name, content_type)
                row, stale = await _index(folder, stored, storage, actor, "file_upload")
                await _drop_original(storage, folder, stale)
                message = "File uploaded successfully"
    except _LateProfile as late:
        is_profile, target = True, PROFILE_IMAGE_NAME
        replaced = await storage.exists(folder.container.name, folder.name, target)
        row = await _store_profile(folder, late.data, storage, actor)
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


async def _store_profile(folder: Folder, data: bytes, storage: Storage, actor: Actor) -> StoredFile:
    """Process an image into the folder's profile image (replacing any previous one)."""
    try:
        jpeg = await asyncio.to_thread(process_profile_image, data)
    except InvalidImage as exc:
        raise ApiError(400, str(exc)) from None
    await storage.write(
        folder.container.name,
        folder.name,
        PROFILE_IMAGE_NAME,
        _once(jpeg),
        content_type="image/jpeg",
    )
    stored = _Stored(PROFILE_IMAGE_NAME, "image/jpeg", is_profile_image=True)
    row, _ = await _index(folder, stored, storage, actor, "profile_upload")
    return row


async def _store_rtf(
    folder: Folder, name: str, data: bytes, storage: Storage, actor: Actor
) -> StoredFile:
    """Keep an RTF's original bytes and list its text as {basename}.txt."""
    try:
        text = await asyncio.to_thread(convert_rtf, data)
    except InvalidRtf as exc:
        raise ApiError(422, str(exc)) from None
    target = text_name_for(name)
    where = (folder.container.name, folder.name)
    await storage.write(*where, original_rtf_key(name), _once(data), content_type="application/rtf")
    await storage.write(*where, target, _once(text.encode()), content_type=TEXT_CONTENT_TYPE)
    stored = _Stored(target, TEXT_CONTENT_TYPE, original_rtf_name=name)
    row, stale = await _index(folder, stored, storage, actor, "file_upload")
    await _drop_original(storage, folder, stale)
    return row


async def store_file(
    folder: Folder, name: str, data: bytes, *, storage: Storage, actor: Actor, profile: bool = False
) -> StoredFile:
    """Store small in-memory content the way an upload would (the demo and tools use this)."""
    if error := file_name_error(name):
        raise ApiError(400, error)
    if profile:
        return await _store_profile(folder, data, storage, actor)
    if extension_of(name) == "rtf":
        return await _store_rtf(folder, name, data, storage, actor)
    content_type = _content_type(name, None)
    await storage.write(folder.container.name, folder.name, name, _once(data))
    row, stale = await _index(folder, _Stored(name, content_type), storage, actor, "file_upload")
    await _drop_original(storage, folder, stale)
    return row


def _flag(fields: dict[str, str], name: str) -> bool:
    return fields.get(name, "").strip().lower() == "true"


async def _drop_original(storage: Storage, folder: Folder, rtf_name: str | None) -> None:
    """Remove the kept original of an RTF whose text was replaced or deleted."""
    if rtf_name:
        with contextlib.suppress(NotFound, InvalidName):
            await storage.delete(folder.container.name, folder.name, original_rtf_key(rtf_name))


async def delete_file(folder: Folder, name: str, actor: Actor, storage: Storage) -> str:
    """Delete a file (with a converted RTF's kept original); return the success message."""
    row = await get_file(folder, name)
    with contextlib.suppress(NotFound):  # already gone from storage: still drop the index row
        await storage.delete(folder.container.name, folder.name, name)
    async with transaction() as conn:
        await StoredFile.filter(id=row.id).using_db(conn).delete()
        event = PROFILE_CHANGED if row.is_profile_image else FILE_DELETED
        _announce(event, folder, name)
        await record(
            conn,
            actor,
            "profile_delete" if row.is_profile_image else "file_delete",
            container=folder.container.name,
            folder=folder.name,
            blob=name,
        )
    await _drop_original(storage, folder, row.original_rtf_name)
    return (
        "Profile image deleted successfully"
        if row.is_profile_image
        else "File deleted successfully"
    )


# File counts per type of the caller's folders: a subquery of their folder ids, so the database
# starts from the (folder_id, extension) index of those folders instead of joining every file.
MY_FILE_COUNTS = (
    "SELECT folder_id, extension, COUNT(*) AS n FROM files WHERE folder_id IN "
    "(SELECT folder_id FROM folder_assignments WHERE user_id = ?) GROUP BY folder_id, extension"
)
MY_FOLDERS = (
    "SELECT fa.folder_id, f.name AS folder, c.name AS container FROM folder_assignments fa "
    "JOIN folders f ON f.id = fa.folder_id JOIN containers c ON c.id = f.container_id "
    "WHERE fa.user_id = ?"
)


async def my_stats(user_id: int) -> MyStatsResponse:
    """File counts over the caller's assigned folders, computed by the database in one pass."""
    assigned = await fetch(MY_FOLDERS, user_id)
    per_folder: dict[int, dict[str, int]] = {}
    total: dict[str, int] = {}
    for item in await fetch(MY_FILE_COUNTS, user_id):
        per_folder.setdefault(item["folder_id"], {})[item["extension"]] = item["n"]
        total[item["extension"]] = total.get(item["extension"], 0) + item["n"]
    ordered = sorted(
        assigned,
        key=lambda a: (
            *sort_key(a["container"]),
            a["container"],
            *sort_key(a["folder"]),
            a["folder"],
        ),
    )
    folders = [
        FolderStats(
            containerName=a["container"],
            folderName=a["folder"],
            totalFiles=sum(per_folder.get(a["folder_id"], {}).values()),
            fileTypes=_by_count(per_folder.get(a["folder_id"], {})),
        )
        for a in ordered
    ]
    containers = len((await caller_assignments(user_id)).containers)
    return MyStatsResponse(
        summary=SummaryStats(
            totalFiles=sum(total.values()),
            fileTypes=_by_count(total),
            containerCount=containers,
            folderCount=len(assigned),
        ),
        folders=folders,
    )


def _by_count(types: dict[str, int]) -> dict[str, int]:
    return dict(sorted(types.items(), key=lambda kv: (-kv[1], kv[0])))


# Reindexing: make the index match what storage actually holds.


@dataclass
class ReindexReport:
    """What a reindex changed."""

    containers_added: list[str] = field(default_factory=list)
    folders_added: list[str] = field(default_factory=list)
    files_added: int = 0
    files_updated: int = 0
    files_removed: int = 0
    skipped: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        """A short human-readable summary."""
        return [
            f"Containers added: {len(self.containers_added)}",
            f"Folders added: {len(self.folders_added)}",
            f"Files added: {self.files_added}",
            f"Files updated: {self.files_updated}",
            f"Files removed (no longer in storage): {self.files_removed}",
            *(f"Skipped (name not allowed): {name}" for name in self.skipped),
        ]


def _desired(infos: list[FileInfo]) -> dict[str, dict[str, object]]:
    """Index values for a folder's stored files (kept RTF originals mark their text file)."""
    originals = {
        text_name_for(info.name.removeprefix(RTF_ORIGINAL_PREFIX)): info.name.removeprefix(
            RTF_ORIGINAL_PREFIX
        )
        for info in infos
        if info.name.startswith(RTF_ORIGINAL_PREFIX)
    }
    desired: dict[str, dict[str, object]] = {}
    for info in infos:
        if info.name.startswith(RTF_ORIGINAL_PREFIX):
            continue
        original = originals.get(info.name)
        desired[info.name] = {
            "size": info.size,
            "last_modified": info.last_modified,
            "extension": extension_of(info.name),
            "is_profile_image": info.name == PROFILE_IMAGE_NAME,
            "converted_from_rtf": original is not None,
            "original_rtf_name": original,
            "content_type": TEXT_CONTENT_TYPE
            if original
            else (info.content_type or DEFAULT_CONTENT_TYPE),
        }
    return desired


def _differs(row: StoredFile, values: dict[str, object]) -> bool:
    moved = abs((row.last_modified - values["last_modified"]).total_seconds())  # type: ignore[operator]
    return (
        row.size != values["size"]
        or moved > 1
        or row.is_profile_image != values["is_profile_image"]
        or row.original_rtf_name != values["original_rtf_name"]
    )


async def _reindex_folder(folder: Folder, infos: list[FileInfo], report: ReindexReport) -> None:
    desired = _desired(infos)
    rows = {r.name: r for r in await StoredFile.filter(folder=folder)}
    async with transaction() as conn:
        gone = [r.id for name, r in rows.items() if name not in desired]
        if gone:
            await StoredFile.filter(id__in=gone).using_db(conn).delete()
            report.files_removed += len(gone)
        new = [StoredFile(folder=folder, name=n, **v) for n, v in desired.items() if n not in rows]
        if new:
            await StoredFile.bulk_create(new, batch_size=500, using_db=conn)
            report.files_added += len(new)
        for name, values in desired.items():
            row = rows.get(name)
            if row is not None and _differs(row, values):
                values = {**values, "content_type": row.content_type}  # keep the uploaded type
                await row.update_from_dict(values).save(using_db=conn)
                report.files_updated += 1


def _sort_fields(name: str) -> dict[str, object]:
    prefix, number = sort_key(name)
    return {"sort_prefix": prefix, "sort_number": number}


async def reindex(storage: Storage) -> ReindexReport:
    """Rebuild the index (and containers and folders) from what storage holds."""
    report = ReindexReport()
    seen: set[int] = set()
    for container_name in await storage.list_containers():
        if container_name_error(container_name):
            report.skipped.append(container_name)
            continue
        container, created = await Container.get_or_create(
            name=container_name, defaults=_sort_fields(container_name)
        )
        if created:
            report.containers_added.append(container_name)
        for folder_name in await storage.list_folders(container_name):
            if folder_name_error(folder_name):
                report.skipped.append(f"{container_name}/{folder_name}")
                continue
            folder, created = await Folder.get_or_create(
                container=container, name=folder_name, defaults=_sort_fields(folder_name)
            )
            if created:
                report.folders_added.append(f"{container_name}/{folder_name}")
            seen.add(folder.id)
            await _reindex_folder(
                folder, await storage.list_files(container_name, folder_name), report
            )
    indexed = set(await StoredFile.all().distinct().values_list("folder_id", flat=True))
    vanished = sorted(indexed - seen)  # folders no longer in storage: their files are gone too
    for start in range(0, len(vanished), 500):
        report.files_removed += await StoredFile.filter(
            folder_id__in=vanished[start : start + 500]
        ).delete()
    return report
