"""The intake's housekeeping, one process at a time (a lease), every hour and at start: bytes
under `.bff-intake/` that no item names (a crash between their move and the commit) and
thumbnails of bytes no item names (`service.sweep_orphans`, after
BFF_UPLOAD_STAGING_GRACE_SECONDS) and the bytes of items deleted
more than BFF_TRASH_DAYS ago (`filing.purge_deleted`; their rows stay), the bytes of filed
items whose removal right after the filing failed (`access.purge_filed`, after 10 minutes), and
a split's parts held for an hour (its process died between its parts and it was not split again:
`reshaping.discard_stale_parts`, deleted with their bytes, never shown)."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from bff.intake.access import purge_filed
from bff.intake.filing import purge_deleted
from bff.intake.reshaping import discard_stale_parts
from bff.intake.service import sweep_orphans
from bff.leases import Periodic, leased
from config.settings import Settings
from storage.base import Storage

log = logging.getLogger(__name__)

LEASE = "intake-housekeeping"
INTERVAL_SECONDS = 3600.0
LEASE_SECONDS = 600.0


async def tidy(
    storage: Storage, settings: Settings, now: datetime | None = None
) -> tuple[int, int]:
    """One run (if this process gets the lease), as at `now` (default: the clock's; a test
    names a later time rather than waiting): (orphans removed, deleted and filed items' bytes
    and stale held parts removed)."""
    async with leased(LEASE, LEASE_SECONDS) as held:
        if not held:
            return 0, 0
        grace = timedelta(seconds=settings.upload_staging_grace_seconds)
        orphans = await sweep_orphans(storage, grace, now)
        purged = await purge_deleted(storage, settings.trash_days, now)
        purged += await purge_filed(storage, now)
        purged += await discard_stale_parts(storage, now)
    if orphans or purged:
        log.info(
            "Intake housekeeping: %d stray objects, %d deleted or filed items' bytes or "
            "stale split parts",
            orphans,
            purged,
        )
    return orphans, purged


def housekeeper(storage: Storage, settings: Settings) -> Periodic:
    """`tidy` at start and every hour."""

    async def run() -> None:
        await tidy(storage, settings)

    return Periodic(INTERVAL_SECONDS, [("Intake housekeeping", run)], at_start=True)
