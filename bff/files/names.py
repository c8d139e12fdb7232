"""How files are named and typed: reserved names, the RTF pair, extensions, content types."""

from __future__ import annotations

import re
import secrets
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from bff.naming import given_name
from storage.base import (
    PREVIEWS_DIR,
    QUARANTINE_DIR,
    TRASH_DIR,
    VERSIONS_DIR,
    InvalidName,
    ObjectKey,
    guess_content_type,
    validate_name,
)

if TYPE_CHECKING:
    from bff.containers.models import Folder

PROFILE_IMAGE_NAME = "patient-profile.jpg"
# The original bytes of a converted RTF are kept beside its text under this (unlisted) prefix.
RTF_ORIGINAL_PREFIX = ".rtf-original."
DEFAULT_CONTENT_TYPE = "application/octet-stream"
TEXT_CONTENT_TYPE = "text/plain; charset=utf-8"
PROFILE_NAME_RESERVED = (
    f"'{PROFILE_IMAGE_NAME}' is kept for the patient's profile image. Rename it."
)
RTF_NAME_TOO_LONG = "Invalid file name: it is too long to keep the original RTF."
# Versions and the trash (bff/files/versions.py): a version's kept RTF original is stored
# beside it with this suffix; ids start with the UTC time they were made.
ORIGINAL_SUFFIX = ".rtf-original"
_ID_TIME = "%Y%m%dT%H%M%S%fZ"
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


def given_file_name(name: str) -> str:
    """A file name a person gave (surrounding spaces dropped), spelt in NFC, or ApiError 400
    (bff/naming.py: the one check of names people give)."""
    return given_name(name.strip(), "file name", file_name_error)


def original_rtf_key(rtf_name: str) -> str:
    """The storage name that keeps a converted RTF's original bytes."""
    return RTF_ORIGINAL_PREFIX + rtf_name


def text_name_for(rtf_name: str) -> str:
    """The listed name of a converted RTF: its base name with .txt."""
    return rtf_name.rpartition(".")[0] + ".txt"


def content_type_for(name: str, declared: str | None) -> str:
    """The type a file is served with: known from its name, else as declared if well-formed."""
    guessed = guess_content_type(name)
    if guessed:
        return guessed
    declared = (declared or "").split(";")[0].strip()
    return declared if _CONTENT_TYPE_RE.fullmatch(declared) else DEFAULT_CONTENT_TYPE


def new_id(now: datetime | None = None) -> str:
    """A fresh version or trash id that sorts by time."""
    return f"{(now or datetime.now(UTC)).strftime(_ID_TIME)}-{secrets.token_hex(4)}"


def id_time(value: str) -> datetime | None:
    """The time an id was made, or None for an id not made by new_id."""
    try:
        return datetime.strptime(value[:22], _ID_TIME).replace(tzinfo=UTC)
    except ValueError:
        return None


def folder_key(folder: Folder) -> ObjectKey:
    """The key of a folder's place in storage: the prefix of its files and of its versions,
    trash and thumbnails."""
    return ObjectKey.folder(folder.container.name, folder.name)


def version_key(
    where: ObjectKey, name: str, version_id: str, *, original: bool = False
) -> ObjectKey:
    """Where a live file's earlier version (or its kept RTF original) is stored, in folder
    where."""
    return where.child(VERSIONS_DIR, name, version_id + (ORIGINAL_SUFFIX if original else ""))


def trash_key(where: ObjectKey, trash_id: str, *rest: str) -> ObjectKey:
    """Where a trash entry's objects are stored, in folder where."""
    return where.child(TRASH_DIR, trash_id, *rest)


def trashed_version_key(
    where: ObjectKey, trash_id: str, version_id: str, *, original: bool = False
) -> ObjectKey:
    """Where an earlier version of a trashed file is stored, in folder where."""
    suffix = ORIGINAL_SUFFIX if original else ""
    return trash_key(where, trash_id, VERSIONS_DIR, version_id + suffix)


def preview_key(where: ObjectKey, name: str, version_id: str) -> ObjectKey:
    """Where the thumbnail of a file's content of that version is stored, in folder where."""
    return where.child(PREVIEWS_DIR, name, version_id + ".webp")


def quarantine_key(where: ObjectKey, quarantine_id: str) -> ObjectKey:
    """Where content the malware scanner found is kept apart, in folder where (bff/scan/)."""
    return where.child(QUARANTINE_DIR, quarantine_id)
