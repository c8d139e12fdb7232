"""Shapes of the malware scanning's admin answers (bff/scan/routes.py)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from pydantic import BaseModel, Field


class QuarantineQuery(BaseModel):
    """Paging: page from 1, pageSize entries per page (1-200, default 50)."""

    page: Annotated[int, Field(ge=1, le=1_000_000)] = 1
    pageSize: Annotated[int, Field(ge=1, le=200)] = 50


class QuarantinedOut(BaseModel):
    """Content the scanner found, kept apart: where it was going, what was found, who sent
    it and when; reason: upload (found as it came in) or rescan (found by a later scan: of a
    held, never scanned or recent file)."""

    id: int
    container: str
    folder: str
    name: str
    signature: str
    size: int
    uploadedById: int | None
    uploadedByName: str
    foundAt: datetime
    reason: Literal["upload", "rescan"]
    kept: bool = Field(description="Whether its bytes are kept (false: storage failed)")


class QuarantinePage(BaseModel):
    """Newest first, with the total."""

    quarantined: list[QuarantinedOut]
    total: int
    page: int
    pageSize: int


class ScanningState(BaseModel):
    """configured: a scanner is set (BFF_CLAMD); available: it answered PING just now (null
    when none is configured); unavailable: what happens to uploads while it is not (refuse or
    hold); quarantined: contents kept in quarantine; held: files stored held, not yet scanned."""

    configured: bool
    available: bool | None
    unavailable: Literal["refuse", "hold"]
    quarantined: int
    held: int
