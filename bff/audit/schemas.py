"""Shapes of the audit log API."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated

from pydantic import AfterValidator, AwareDatetime, BaseModel, Field

from bff.ids import DbId

# SQLite compares stored timestamps (always UTC) as text, so a bound given in another zone must
# be converted to UTC first or the comparison is off by the offset.
UtcDatetime = Annotated[AwareDatetime, AfterValidator(lambda value: value.astimezone(UTC))]
MAX_ENTRY_ID = 2**63 - 1  # audit entry ids are 64-bit


class AuditQuery(BaseModel):
    """Filters for GET /api/blobs/audit; all optional, combined with AND.

    operation: exact operation name (e.g. login, user_create, folder_assign).
    userId: the acting user's id. containerName, folderName: exact resource names.
    since, until: ISO 8601 timestamps with a time zone (since inclusive, until exclusive).
    cursor: the nextCursor of the previous page. limit: entries per page (1-200, default 50).
    """

    operation: Annotated[str, Field(max_length=40)] | None = None
    userId: DbId | None = None
    containerName: Annotated[str, Field(max_length=63)] | None = None
    folderName: Annotated[str, Field(max_length=100)] | None = None
    since: UtcDatetime | None = None
    until: UtcDatetime | None = None
    cursor: Annotated[int, Field(ge=1, le=MAX_ENTRY_ID)] | None = None
    limit: Annotated[int, Field(ge=1, le=200)] = 50


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
