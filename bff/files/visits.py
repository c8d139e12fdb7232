"""Visits: a member of staff's visits to a folder's files, so that the web app can mark the files
added since the visit before as new (issue 50). A visit is the person's requests within
VISIT_WINDOW of each other: a reload, or coming back to the folder a few minutes later, goes on
with the same visit and keeps its files marked; after a longer pause, or VISIT_LONGEST after
the visit began, the next visit begins. A
visit is about the person, not the patient: it is not audited (the listing it comes with is)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from bff.containers.models import Folder
from bff.db import transaction
from bff.files import repository

# How long after its last request a visit goes on: a ward round's work in one folder.
VISIT_WINDOW = timedelta(minutes=30)
# How long a visit lasts at most, however often the person comes back: files read in the
# morning are not marked new all day.
VISIT_LONGEST = timedelta(hours=2)


async def visit(folder: Folder, user_id: int) -> datetime | None:
    """Record user's visit to folder now; when the visit before it ended (None: the first)."""
    async with transaction() as conn:
        now = datetime.now(UTC)
        return await repository.record_visit(
            conn, user_id, folder.id, now, VISIT_WINDOW, VISIT_LONGEST
        )
