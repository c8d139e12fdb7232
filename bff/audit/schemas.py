"""Shapes of the audit log API."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Literal

from pydantic import AfterValidator, AwareDatetime, BaseModel, Field

from bff.ids import DbId

# SQLite compares stored timestamps (always UTC) as text, so a bound given in another zone must
# be converted to UTC first or the comparison is off by the offset.
UtcDatetime = Annotated[AwareDatetime, AfterValidator(lambda value: value.astimezone(UTC))]
MAX_ENTRY_ID = 2**63 - 1  # audit entry ids are 64-bit


class AuditQuery(BaseModel):
    """Filters for GET /api/blobs/audit; all optional, combined with AND.

    operation: exact operation name (e.g. login, user_create, folder_assign).
    userId: the acting user's id. user, containerName, folderName: case-insensitive parts of
    the acting user's name and of the resource names ("north" finds "North-Clinic").
    since, until: ISO 8601 timestamps with a time zone (since inclusive, until exclusive).
    cursor: the nextCursor of the previous page. limit: entries per page (1-200, default 50).
    format: csv downloads every entry matching the filters (all pages, newest first) as CSV.
    """

    operation: Annotated[str, Field(max_length=40)] | None = None
    userId: DbId | None = None
    user: Annotated[str, Field(max_length=100)] | None = None
    containerName: Annotated[str, Field(max_length=63)] | None = None
    folderName: Annotated[str, Field(max_length=100)] | None = None
    since: UtcDatetime | None = None
    until: UtcDatetime | None = None
    cursor: Annotated[int, Field(ge=1, le=MAX_ENTRY_ID)] | None = None
    limit: Annotated[int, Field(ge=1, le=200)] = 50
    format: Literal["json", "csv"] = "json"


class ReportQuery(BaseModel):
    """GET /api/blobs/audit/report: every access to one patient folder's data, oldest first.

    containerName, folderName: the folder (exact names). since, until: ISO 8601 timestamps
    with a time zone (since inclusive, until exclusive). cursor: the nextCursor of the previous
    page; limit: entries per page (1-200, default 50). order: newest shows the latest first
    (the web app's access history; the cursor then pages back in time). format: csv downloads
    the whole report (always oldest first).
    """

    containerName: Annotated[str, Field(min_length=1, max_length=63)]
    folderName: Annotated[str, Field(min_length=1, max_length=100)]
    since: UtcDatetime | None = None
    until: UtcDatetime | None = None
    cursor: Annotated[int, Field(ge=0, le=MAX_ENTRY_ID)] | None = None
    limit: Annotated[int, Field(ge=1, le=200)] = 50
    order: Literal["oldest", "newest"] = "oldest"
    format: Literal["json", "csv"] = "json"


class AuditEntry(BaseModel):
    """One audit log entry (spec section 3, plus who and from where)."""

    id: int
    userId: int | None
    name: str
    role: str
    operation: str
    containerName: str
    folderName: str
    blobName: str
    clientAddress: str
    details: str
    timestamp: datetime


class AuditPage(BaseModel):
    """Newest first; pass nextCursor as cursor for the next page (null at the end)."""

    auditLogs: list[AuditEntry]
    nextCursor: int | None


class ReportPage(BaseModel):
    """Oldest first; pass nextCursor as cursor for the next page (null at the end)."""

    entries: list[AuditEntry]
    nextCursor: int | None


class AuditBreak(BaseModel):
    """A break the server's periodic verification found in the audit log."""

    entryId: int
    reason: str
    foundAt: datetime


class AuditStatus(BaseModel):
    """The audit log's state: verified up to entry verifiedUpTo at verifiedAt (the latest
    signed checkpoint; null before the first), or broken."""

    verifiedUpTo: int | None
    verifiedAt: datetime | None
    broken: AuditBreak | None
