"""How files are named and typed: reserved names, the RTF pair, extensions, content types."""

from __future__ import annotations

import re
import secrets
from datetime import UTC, datetime

from storage.base import (
    TRASH_DIR,
    VERSIONS_DIR,
    InvalidName,
    guess_content_type,
    validate_name,
)

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
ObjectPath = tuple[str, ...]
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


def version_path(name: str, version_id: str, *, original: bool = False) -> ObjectPath:
    """Where a live file's earlier version (or its kept RTF original) is stored."""
    return (VERSIONS_DIR, name, version_id + (ORIGINAL_SUFFIX if original else ""))


def trash_path(trash_id: str, *rest: str) -> ObjectPath:
    """Where a trash entry's objects are stored."""
    return (TRASH_DIR, trash_id, *rest)


def trashed_version_path(trash_id: str, version_id: str, *, original: bool = False) -> ObjectPath:
    """Where an earlier version of a trashed file is stored."""
    return trash_path(trash_id, VERSIONS_DIR, version_id + (ORIGINAL_SUFFIX if original else ""))
