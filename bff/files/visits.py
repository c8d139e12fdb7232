"""Visits: when a member of staff last opened a folder's files, so that the web app can mark
the files added since as new (issue 50). A visit is about the person, not the patient: it is
not audited (the listing it comes with is)."""

from __future__ import annotations

from datetime import UTC, datetime

from bff.containers.models import Folder
from bff.db import transaction
from bff.files import repository


async def visit(folder: Folder, user_id: int) -> datetime | None:
    """Record user's visit to folder now; the one before it (None: the first)."""
    async with transaction() as conn:
        return await repository.record_visit(conn, user_id, folder.id, datetime.now(UTC))
