"""How files are named and typed: reserved names, the RTF pair, extensions, content types."""

from __future__ import annotations

import re

from storage.base import InvalidName, guess_content_type, validate_name

PROFILE_IMAGE_NAME = "patient-profile.jpg"
# The original bytes of a converted RTF are kept beside its text under this (unlisted) prefix.
RTF_ORIGINAL_PREFIX = ".rtf-original."
DEFAULT_CONTENT_TYPE = "application/octet-stream"
TEXT_CONTENT_TYPE = "text/plain; charset=utf-8"
PROFILE_NAME_RESERVED = (
    f"'{PROFILE_IMAGE_NAME}' is kept for the patient's profile image. Rename it."
)
RTF_NAME_TOO_LONG = "Invalid file name: it is too long to keep the original RTF."
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
