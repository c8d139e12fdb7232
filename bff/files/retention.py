"""Retention: trash entries older than BFF_TRASH_DAYS, and old versions beyond
BFF_VERSION_DAYS or BFF_MAX_VERSIONS, purged for good (audited), one process at a time; the
upload sweep's loop runs it (bff/files/staging.py).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from bff.audit.service import record
from bff.db import transaction
from bff.files import repository
from bff.files.models import FileVersion
from bff.files.names import folder_key, version_key
from bff.files.trash import purge_entry
from bff.leases import leased
from bff.users.bootstrap import SYSTEM
from config.settings import Settings
from storage.base import Storage

log = logging.getLogger(__name__)

RETENTION_LEASE = "retention-purge"
_PURGE_BATCH = 200


@dataclass
class PurgeReport:
    """What a retention purge removed."""

    trash: list[str] = field(default_factory=list)  # container/folder/name (trashId)
    versions: list[str] = field(default_factory=list)  # container/folder/name (versionId)
    ran: bool = True  # False: another process holds the lease

    def lines(self) -> list[str]:
        """A human-readable account."""
        if not self.ran:
            return ["Another process is purging now; nothing done."]
        return [
            *(f"Purged from the trash: {entry}" for entry in self.trash),
            *(f"Purged old version: {entry}" for entry in self.versions),
            f"Trash entries purged: {len(self.trash)}",
            f"Old versions purged: {len(self.versions)}",
        ]


async def _purge_version(storage: Storage, version: FileVersion, why: str) -> str:
    folder = await repository.folder_by_id(version.folder_id)
    container = folder.container.name
    where = folder_key(folder)
    await storage.delete_object(version_key(where, version.name, version.version_id))
    await storage.delete_object(version_key(where, version.name, version.version_id, original=True))
    async with transaction() as conn:
        await repository.delete_versions(conn, id=version.id)
        await record(
            conn,
            SYSTEM,
            "version_purge",
            container=container,
            folder=folder.name,
            blob=version.name,
            details=f"version {version.version_id}: {why}",
        )
    return f"{container}/{folder.name}/{version.name} ({version.version_id})"


async def purge_expired(
    storage: Storage, settings: Settings, *, now: datetime | None = None, lease_seconds: float = 600
) -> PurgeReport:
    """Purge trash entries older than BFF_TRASH_DAYS and old versions beyond BFF_VERSION_DAYS
    or BFF_MAX_VERSIONS; one process at a time (the others return ran=False)."""
    now = now or datetime.now(UTC)
    async with leased(RETENTION_LEASE, lease_seconds) as held:
        if not held:
            return PurgeReport(ran=False)
        report = PurgeReport()
        cutoff = now - timedelta(days=settings.trash_days)
        while entries := await repository.expired_trash(cutoff, _PURGE_BATCH):
            for entry in entries:
                folder = await repository.folder_by_id(entry.folder_id)
                why = f"in the trash over {settings.trash_days} days"
                await purge_entry(storage, folder, entry, SYSTEM, why)
                report.trash.append(
                    f"{folder.container.name}/{folder.name}/{entry.name} ({entry.trash_id})"
                )
        if settings.version_days:
            old = now - timedelta(days=settings.version_days)
            while versions := await repository.expired_versions(old, _PURGE_BATCH):
                for version in versions:
                    why = f"older than {settings.version_days} days"
                    report.versions.append(await _purge_version(storage, version, why))
        if settings.max_versions:
            for version in await repository.versions_beyond(settings.max_versions):
                why = f"beyond the newest {settings.max_versions}"
                report.versions.append(await _purge_version(storage, version, why))
    if report.trash or report.versions:
        log.info(
            "Retention: %d trash entries and %d old versions purged",
            len(report.trash),
            len(report.versions),
        )
    return report
