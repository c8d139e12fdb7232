"""The malware scan of every new content (issue 49), as bff/files/screening.py runs it.

`Scan` counts a content's bytes as they are staged (`count`), then `verdict` reads the staged
content back and streams it to clamd (`scan_content`: never the whole file in memory) and reads
clamd's answer:

- clean: the file is stored, its row's scan_state "clean" and scanned_at now;
- infected: refused, 422 "This file was not saved: the virus scanner found <Signature>";
  nothing is stored under its name: its staged bytes are first moved into quarantine
  (`{container}/{folder}/.bff-quarantine/{id}`, a `Quarantined` row), audited `file_rejected`
  with the signature, announced to admins (`file:quarantined`) and counted;
- unavailable (clamd not reached, too slow past BFF_SCAN_SECONDS, an error, or the content
  over BFF_SCAN_MAX_MB or clamd's own StreamMaxLength): by BFF_SCAN_UNAVAILABLE, refused (503
  with Retry-After, nothing stored) or stored "held";
- no scanner configured (BFF_CLAMD empty): stored "unscanned", as before scanning existed.

Why read back rather than send each chunk on as the client's upload passes: an upload arrives
at the client's pace, and clamd keeps each open stream (a connection, a temporary file) until
its last chunk, dropping it when the next chunk has not come within its ReadTimeout (120 s by
default): a nurse's upload over a slow link that stalled that long was refused as "scanner not
available", and every slow or stalled client held one of clamd's connections for as long as it
liked. Read back from staging, a scan's connection lasts as long as storage and clamd take,
never a client's pace; and each process opens at most BFF_SCAN_CONNECTIONS at once
(`scan_content`), a place waited for within BFF_SCAN_SECONDS. clamd scans a stream only once it
has ended in any case, so the upload's answer waited for clamd's scan either way; reading back
costs ~3 ms a MB from local disk.

The quarantine's admin side (list, remove, the scanner's state) is here too.
"""

from __future__ import annotations

import asyncio
import logging
import time
import weakref
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from bff import metrics
from bff.audit.service import Actor, record
from bff.containers.models import Folder
from bff.db import transaction
from bff.errors import ApiError
from bff.files.names import folder_key, new_id, quarantine_key
from bff.live.events import ADMINS, FILE_QUARANTINED, publish
from bff.scan import clamd, repository
from bff.scan.models import UPLOAD, Quarantined
from config.logs import shown
from config.settings import Settings
from storage.base import ObjectKey, ReadStream, Storage, StorageError

log = logging.getLogger(__name__)

UNSCANNED = "unscanned"  # no scanner configured, or stored before scanning existed
CLEAN = "clean"
HELD = "held"  # stored while the scanner was unavailable (BFF_SCAN_UNAVAILABLE=hold)
UNAVAILABLE_MESSAGE = (
    "The virus scanner is not available; the file was not saved. Try again in a few minutes."
)
RETRY_AFTER_SECONDS = 120


def infected_message(signature: str) -> str:
    return f"This file was not saved: the virus scanner found {signature}"


@dataclass(frozen=True)
class ScanConfig:
    """The process's scanning settings (`configure_scanning`)."""

    address: str = ""  # BFF_CLAMD; empty: no scanner
    seconds: float = 30.0
    max_bytes: int = 100 * 1024 * 1024
    unavailable: str = "refuse"
    rescan_days: int = 7  # BFF_RESCAN_DAYS: recent files scanned again (0: none)
    rescan_hours: float = 24.0  # BFF_RESCAN_HOURS: once their last scan is this old
    connections: int = 4  # BFF_SCAN_CONNECTIONS: this process's connections to clamd at once

    @property
    def configured(self) -> bool:
        return bool(self.address)


_config = ScanConfig()


def configure_scanning(settings: Settings) -> None:
    """Read the scanning settings for this process."""
    global _config  # process-wide, like the settings they come from
    _config = ScanConfig(
        settings.clamd,
        settings.scan_seconds,
        settings.scan_max_mb * 1024 * 1024,
        settings.scan_unavailable,
        settings.rescan_days,
        settings.rescan_hours,
        settings.scan_connections,
    )
    _places.clear()


def current_config() -> ScanConfig:
    return _config


@dataclass(frozen=True)
class Place:
    """Where new content was on its way to, as its quarantine and audit entries name it: a
    folder (`Place.of`), or one of the product's own areas (the intake's, bff/intake/: its
    container a reserved name no container can have, its folder empty). key: the prefix its
    quarantine is kept under."""

    container: str
    folder: str
    key: ObjectKey

    @classmethod
    def of(cls, where: Folder | Place) -> Place:
        """The place of a folder (a place is its own)."""
        if isinstance(where, Place):
            return where
        return cls(where.container.name, where.name, folder_key(where))


@dataclass(frozen=True)
class Scanned:
    """What the scan let in: the file row's scan columns."""

    state: str = UNSCANNED
    at: datetime | None = None

    def values(self) -> dict[str, Any]:
        return {"scan_state": self.state, "scanned_at": self.at}


# Each event loop's places for connections to clamd (`scan_content`), by their number
# (BFF_SCAN_CONNECTIONS).
_places: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[int, asyncio.Semaphore]] = (
    weakref.WeakKeyDictionary()
)


def _places_here(config: ScanConfig) -> asyncio.Semaphore:
    here = _places.setdefault(asyncio.get_running_loop(), {})
    places = here.get(config.connections)
    if places is None:
        places = here[config.connections] = asyncio.Semaphore(config.connections)
    return places


async def scan_content(
    open_content: Callable[[], Awaitable[ReadStream]], config: ScanConfig
) -> clamd.Result:
    """clamd's verdict on a stored content (open_content streams it: a staged upload, a stored
    file), streamed to clamd on one of this process's BFF_SCAN_CONNECTIONS connections, a place
    waited for within BFF_SCAN_SECONDS; Unavailable when no verdict can be had."""
    places = _places_here(config)
    try:
        async with asyncio.timeout(config.seconds):
            await places.acquire()
    except TimeoutError:
        raise clamd.Unavailable("every connection to clamd was busy") from None
    stream = clamd.Instream(config.address, config.seconds)
    try:
        await stream.open()
        async with await open_content() as chunks:
            async for chunk in chunks:
                await stream.send(chunk)
                if stream.failure is not None:  # clamd gone or its limit: its reason first
                    break
        return await stream.answer()
    finally:
        stream.close()
        places.release()


@dataclass
class Scan:
    """One content's scan: its bytes counted as they are staged, then scanned read back."""

    config: ScanConfig = field(default_factory=current_config)
    size: int = 0

    def count(self, chunk: bytes) -> None:
        """Count a chunk on its way to staging."""
        self.size += len(chunk)

    async def verdict(
        self, storage: Storage, staging_key: str, folder: Folder | Place, actor: Actor, name: str
    ) -> Scanned:
        """clamd's answer on the staged content: what the row records, or a refusal."""
        if not self.config.configured:
            return Scanned()
        started = time.perf_counter()
        try:
            if self.size > self.config.max_bytes:
                raise clamd.Unavailable("larger than BFF_SCAN_MAX_MB", too_large=True)
            result = await scan_content(lambda: storage.open_staged(staging_key), self.config)
        except clamd.Unavailable as failure:
            metrics.scanned("unavailable", time.perf_counter() - started)
            log.warning("Malware scan unavailable: %s", shown(failure.reason))
            if self.config.unavailable == "hold":
                return Scanned(HELD, None)
            raise ApiError(
                503, UNAVAILABLE_MESSAGE, {"Retry-After": str(RETRY_AFTER_SECONDS)}
            ) from None
        seconds = time.perf_counter() - started
        now = datetime.now(UTC)
        if result.signature is None:
            metrics.scanned("clean", seconds)
            return Scanned(CLEAN, now)
        metrics.scanned("infected", seconds)
        await quarantine(
            storage, staging_key, folder, name, result.signature, self.size, actor, now
        )
        raise ApiError(422, infected_message(result.signature))


async def quarantine(
    storage: Storage,
    staging_key: str,
    folder: Folder | Place,
    name: str,
    signature: str,
    size: int,
    actor: Actor,
    now: datetime,
    *,
    reason: str = UPLOAD,
) -> Quarantined:
    """Keep a staged content the scanner found apart (moved, so nothing is left to publish),
    record it, audit it and alert the admins."""
    place = Place.of(folder)
    container = place.container
    key = quarantine_key(place.key, new_id(now))
    try:
        await storage.keep_staged(staging_key, key)
        kept = key.path
    except StorageError as error:  # still refused, still recorded: only the bytes are lost
        log.error("A quarantined content could not be kept: %s", shown(str(error)))
        kept = ""
    async with transaction() as conn:
        row = await repository.add(
            conn,
            container=container,
            folder=place.folder,
            name=name,
            signature=signature[:255],
            size=size,
            uploaded_by_id=actor.user_id,
            uploaded_by_name=actor.name,
            found_at=now,
            reason=reason,
            object_key=kept,
        )
        await record(
            conn,
            actor,
            "file_rejected",
            container=container,
            folder=place.folder,
            blob=name,
            details=f"virus scanner found {signature}; kept in quarantine #{row.id}",
        )
        publish(
            FILE_QUARANTINED,
            {
                "id": row.id,
                "signature": signature,
                "container": container,
                "folder": place.folder,
                "name": name,
            },
            [ADMINS],
        )
    metrics.quarantined()
    return row


# The admin's side: the quarantine and the scanner's state.


async def quarantine_page(offset: int, limit: int) -> tuple[list[Quarantined], int]:
    """Quarantined content, newest first, and how many there are."""
    return await repository.page(offset, limit)


async def remove_quarantined(storage: Storage, quarantine_id: int, actor: Actor) -> None:
    """Remove a quarantined content's bytes and row (audited); 404 when there is none."""
    row = await repository.find(quarantine_id)
    if row is None:
        raise ApiError(404, "No such quarantined file.")
    if row.object_key:
        try:
            await storage.delete_object(ObjectKey.parse(row.object_key))
        except StorageError as error:
            log.error("A quarantined content could not be removed: %s", shown(str(error)))
            raise ApiError(503, "The storage is not available; try again.") from None
    async with transaction() as conn:
        if await repository.remove(conn, row.id):
            await record(
                conn,
                actor,
                "quarantine_delete",
                container=row.container,
                folder=row.folder,
                blob=row.name,
                details=f"{row.signature} (quarantine #{row.id})",
            )


@dataclass(frozen=True)
class ScannerState:
    configured: bool
    available: bool | None
    unavailable: str
    quarantined: int
    held: int


async def scanner_state() -> ScannerState:
    """Whether a scanner is configured and answers PING now (2 s at most), the unavailable
    rule, and how many contents are quarantined and held."""
    config = current_config()
    available = None
    if config.configured:
        available = await clamd.ping(config.address, min(2.0, config.seconds))
    return ScannerState(
        configured=config.configured,
        available=available,
        unavailable=config.unavailable,
        quarantined=await repository.count(),
        held=await repository.count_files(HELD),
    )
