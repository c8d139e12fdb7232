"""How storage names what it keeps: the reserved names, the checks every path segment passes,
the key of a stored object, and what is known about one.
"""

from __future__ import annotations

import mimetypes
import re
import unicodedata
from dataclasses import dataclass
from datetime import datetime
from urllib.parse import unquote

from storage.errors import InvalidName

MAX_NAME_BYTES = 255
# Local writes go to a hidden file of this shape beside the target; listings skip it and no
# caller may use such a name, so a half-written upload can never be seen or overwritten.
TEMP_PREFIX = ".upload-"
TEMP_SUFFIX = ".part"
# Uploads are written under this top-level folder first (`{root}/.bff-staging/{key}`) and moved
# to their name only when the index commits (bff/files/staging.py). No container, folder or file
# may be named so, listings never show it, and `reindex` never sees what is in it.
STAGING_DIR = ".bff-staging"
# Every name starting so is the product's own (staging, file versions, trash, audit checkpoints):
# no container, folder or file a person names may start with it, and listings never show one.
RESERVED_PREFIX = ".bff-"
# Old versions of a file: `{container}/{folder}/.bff-versions/{file}/{versionId}`; the trash of
# a folder: `{container}/{folder}/.bff-trash/{trashId}/...` (bff/files/versions.py). The same
# layout on every backend, so nothing depends on S3 bucket versioning being on or off.
VERSIONS_DIR = ".bff-versions"
TRASH_DIR = ".bff-trash"
# Thumbnails of files' current content: `{container}/{folder}/.bff-previews/{file}/{versionId}.webp`
# (bff/files/thumbnails.py); derived from the files, never listed, rebuilt when missing.
PREVIEWS_DIR = ".bff-previews"
# Content the malware scanner found, kept apart: `{container}/{folder}/.bff-quarantine/{id}`
# (bff/scan/service.py); never listed, never served through the file API.
QUARANTINE_DIR = ".bff-quarantine"
_STAGED_KEY = re.compile(r"[a-z0-9][a-z0-9-]{0,99}")  # fullmatch
# Bidirectional overrides make a name display differently from what it is ("cod.exe" shown
# as "exe.doc"), so they count as control characters here.
_BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


@dataclass(frozen=True, slots=True)
class FileInfo:
    """What is known about one stored file."""

    name: str
    size: int
    last_modified: datetime  # timezone-aware, UTC
    content_type: str | None


# Read the system's type tables now, at import: the first guess_type() would otherwise read
# /etc/mime.types inside a request, stalling the event loop (0.5 s under load in a profile of
# bench/live_bench.py, delaying every live event and request meanwhile).
mimetypes.init()


def guess_content_type(name: str) -> str | None:
    """The content type implied by a file name's extension, if any."""
    return mimetypes.guess_type(name, strict=False)[0]


def is_temp_name(name: str) -> bool:
    """Whether name is an in-progress upload's temporary name (hidden from listings)."""
    return name.startswith(TEMP_PREFIX)


def _segment_problem(segment: str) -> str | None:
    if segment in ("", ".", ".."):
        return "must not be empty, '.' or '..'"
    if "/" in segment or "\\" in segment:
        return "must not contain '/' or '\\'"
    if any(unicodedata.category(ch) in ("Cc", "Cs") or ch in _BIDI_CONTROLS for ch in segment):
        return "must not contain control characters"
    try:
        size = len(segment.encode("utf-8"))
    except UnicodeEncodeError:
        return "must be valid text"
    if size > MAX_NAME_BYTES:
        return f"must be at most {MAX_NAME_BYTES} bytes"
    return None


def _name_problem(segment: str) -> str | None:
    """Why segment is not a safe path segment (also percent-decoded), or None."""
    problem = _segment_problem(segment)
    decoded = segment
    for _ in range(3):  # nested encodings such as %252F
        if problem is not None:
            break
        previous, decoded = decoded, unquote(decoded)
        if decoded == previous:
            break
        problem = _segment_problem(decoded)
        if problem is not None:
            problem += " (even percent-encoded)"
    if problem is None and is_temp_name(segment):
        problem = f"must not start with {TEMP_PREFIX!r} (reserved)"
    return problem


def validate_name(segment: str, what: str = "name") -> str:
    """Return segment if it is a safe single path segment, else raise InvalidName.

    Rejects empty names, '.', '..', '/', '\\', control characters, names over 255 UTF-8 bytes,
    the temporary-upload names and the product's reserved names ('.bff-...'). Percent-encoded
    forms are checked too ('..%2F', '%2e%2e', '%00'), so a layer that decodes a name once more
    later cannot be tricked.
    """
    if not isinstance(segment, str):
        raise InvalidName(f"The {what} must be text.")
    problem = _name_problem(segment)
    if problem is None and segment.startswith(RESERVED_PREFIX):
        problem = f"must not start with {RESERVED_PREFIX!r} (reserved)"
    if problem is not None:
        raise InvalidName(f"Invalid {what}: it {problem}.")
    return segment


def is_valid_segment(segment: str) -> bool:
    """Whether segment may be part of an object key (reserved names included)."""
    return _name_problem(segment) is None


def is_valid_name(segment: str) -> bool:
    """Whether validate_name would accept segment (used to skip foreign names in listings)."""
    try:
        validate_name(segment)
    except InvalidName:
        return False
    return True


def validate_staged_key(key: str) -> str:
    """Return key if it can name a staged object (lower-case letters, digits, '-')."""
    if not isinstance(key, str) or not _STAGED_KEY.fullmatch(key):
        raise InvalidName("Invalid staging key.")
    return key


@dataclass(frozen=True, slots=True)
class ObjectKey:
    """The one way storage names what it keeps: an object (or, as a prefix, every object
    under it) by its path segments under the storage root.

    - a file people name: `ObjectKey.file(container, folder, name)` (reserved names refused);
    - the product's own objects inside a folder (versions, trash, thumbnails):
      `ObjectKey.folder(container, folder).child(".bff-versions", ...)`;
    - elsewhere (audit checkpoints): `ObjectKey.reserved(".bff-audit", ...)`;
    - the text form listings and backups keep ('a/b/c'): `ObjectKey.parse(text)`, `key.path`.

    Every segment is a safe single path segment (no '/', '..', control characters, even
    percent-encoded; no temporary-upload name) and the staging area holds no objects, so a key
    can never reach outside the root, or into staging, on any backend.
    """

    segments: tuple[str, ...]

    def __post_init__(self) -> None:
        if not self.segments:
            raise InvalidName("An object key needs at least one segment.")
        for segment in self.segments:
            if not isinstance(segment, str):
                raise InvalidName("An object key's segments must be text.")
            problem = _name_problem(segment)
            if problem is not None:
                raise InvalidName(f"Invalid object key segment: it {problem}.")
        if self.segments[0] == STAGING_DIR:
            raise InvalidName(f"Invalid object key: {STAGING_DIR!r} holds no objects.")

    @classmethod
    def folder(cls, container: str, folder: str) -> ObjectKey:
        """The key of a folder people name (reserved names refused): a prefix."""
        return cls(
            (validate_name(container, "container name"), validate_name(folder, "folder name"))
        )

    @classmethod
    def file(cls, container: str, folder: str, name: str) -> ObjectKey:
        """The key of a file people name (reserved names refused)."""
        return cls.folder(container, folder).child(validate_name(name, "file name"))

    @classmethod
    def reserved(cls, *segments: str) -> ObjectKey:
        """The key of one of the product's own objects: some segment starts with '.bff-'."""
        if not any(segment.startswith(RESERVED_PREFIX) for segment in segments):
            raise InvalidName(f"A reserved object key has a segment starting {RESERVED_PREFIX!r}.")
        return cls(tuple(segments))

    @classmethod
    def parse(cls, text: str) -> ObjectKey:
        """The key whose text form is text ('container/folder/name', '.bff-audit/...')."""
        if not isinstance(text, str) or not text:
            raise InvalidName("An object key must be non-empty text.")
        return cls(tuple(text.split("/")))

    def child(self, *segments: str) -> ObjectKey:
        """The key of segments under this one."""
        return ObjectKey((*self.segments, *segments))

    @property
    def path(self) -> str:
        """The text form: the segments joined by '/' (relative to the storage root, not
        URL-encoded); what listings name an object by and backups keep."""
        return "/".join(self.segments)

    @property
    def name(self) -> str:
        """The last segment (a file's name)."""
        return self.segments[-1]

    @property
    def inner(self) -> tuple[str, ...]:
        """The segments inside its `{container}/{folder}` (how a folder's own records, such as
        removals to carry out, keep the path of an object there)."""
        return self.segments[2:]
