"""Request and response shapes of the intake's API (/api/intake): only for intake holders."""

from __future__ import annotations

import unicodedata
from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, Field, StringConstraints

from bff.errors import ApiError
from bff.files.names import given_file_name
from bff.naming import is_invisible

REASON_RULE = (
    "A reason is 1 to 500 characters on one line, without control or invisible characters."
)


def _reason(value: str) -> str:
    """A reason as given, in NFC; refused (400) with a control character (a NUL, a line
    break: PostgreSQL refuses a NUL outright) or an invisible one."""
    spelling = unicodedata.normalize("NFC", value)
    if any(unicodedata.category(char) == "Cc" or is_invisible(char) for char in spelling):
        raise ValueError(REASON_RULE)
    return spelling


def _file_name(value: str) -> str:
    """A file name as every name a person gives is checked (bff/naming.py `given_name`)."""
    try:
        return given_file_name(value)
    except ApiError as refusal:
        raise ValueError(refusal.message) from None


Reason = Annotated[
    str,
    StringConstraints(strip_whitespace=True, min_length=1, max_length=500),
    AfterValidator(_reason),
]
Name = Annotated[
    str,
    StringConstraints(strip_whitespace=True, min_length=1, max_length=255),
    AfterValidator(_file_name),
]


class ItemsQuery(BaseModel):
    """GET /api/intake/items: a page of items, newest first (status: only those; default new)."""

    page: Annotated[int, Field(ge=1, le=100_000)] = 1
    pageSize: Annotated[int, Field(ge=1, le=200)] = 50
    status: Literal["new", "filed", "deleted", "all"] = "new"


class FiledOut(BaseModel):
    """Where an item was filed, under which name, by whom and when."""

    container: str
    folder: str
    name: str
    by: str
    at: datetime


class DeletedOut(BaseModel):
    """Who deleted an item, when and why."""

    by: str
    at: datetime
    reason: str


class IntakeItemOut(BaseModel):
    """An item as the inbox shows it. The source's details (file name, a mail's sender,
    subject and Message-ID) are for intake holders only, as every intake route is.
    suggestion: a patient suggested with its evidence (bff/intake/suggest.py), null for none.
    routing: pending until routed (bff/intake/routing.py), claimed while a process routes it,
    done; problems: what the routing found a person should know (a cover sheet that did not
    verify, a folder gone...)."""

    id: int
    source: Literal["scanner", "mailbox", "upload"]
    fileName: str
    sender: str
    subject: str
    messageId: str
    contentType: str
    size: int
    pages: int | None
    status: Literal["new", "filed", "deleted"]
    suggestion: dict[str, Any] | None
    routing: Literal["pending", "claimed", "done"] = "done"
    problems: list[str] = []
    receivedAt: datetime
    receivedBy: str  # the uploader's name; "" for the scanner and the mailbox
    contentUrl: str  # GET it (with the session's header) for the viewer
    # Its thumbnail (a small WebP of page 1 or the image) by a link signed for the caller's
    # session: given by the inbox's listing and an item's detail, null elsewhere and for an
    # item without one (filed, its bytes gone, a type without one, over BFF_PREVIEW_MAX_MB).
    thumbnailUrl: str | None = None
    filed: FiledOut | None = None
    deleted: DeletedOut | None = None


class IntakeItems(BaseModel):
    """A page of items, newest first."""

    items: list[IntakeItemOut]
    total: int
    page: int
    pageSize: int


class UploadedItem(BaseModel):
    """One file of an uploaded batch, in the order sent: its item and whether that content
    was already in the intake (the same bytes are never taken twice: the existing item is
    answered), or why it was refused (the malware scan, the content checks: nothing kept)."""

    fileName: str
    item: IntakeItemOut | None = None
    duplicate: bool = False
    refused: str | None = None


class UploadedBatch(BaseModel):
    """POST /api/intake/items: every file of the batch, in the order sent."""

    items: list[UploadedItem]


class FileItem(BaseModel):
    """POST /api/intake/items/{id}/file: the patient folder (which the caller must see) and
    the file's name there (default: the item's own file name)."""

    container: Annotated[str, Field(min_length=1, max_length=255)]
    folder: Annotated[str, Field(min_length=1, max_length=255)]
    name: Name | None = None


class FiledItem(BaseModel):
    """The item as filed."""

    message: str
    item: IntakeItemOut


class DeleteItem(BaseModel):
    """POST /api/intake/items/{id}/delete: why (required; kept and audited)."""

    reason: Reason


class ItemMessage(BaseModel):
    """A result a person can read, with the item as it now is."""

    message: str
    item: IntakeItemOut


class SplitItem(BaseModel):
    """POST /api/intake/items/{id}/split: the page ranges of the new items, each [first, last]
    (1-based, both included), in order."""

    ranges: Annotated[list[tuple[int, int]], Field(min_length=1, max_length=50)]


class SplitDone(BaseModel):
    """The items a split made, in order (the original is deleted with the split as reason)."""

    message: str
    items: list[IntakeItemOut]


class RotateItem(BaseModel):
    """POST /api/intake/items/{id}/rotate: turn pages (1-based; none given: every page)
    clockwise by degrees."""

    degrees: Literal[90, 180, 270]
    pages: Annotated[list[int], Field(min_length=1, max_length=10_000)] | None = None
