"""Taking documents into the intake (issue 51): `receive` (the scan folder's and mailbox's
`take`) and the upload batch's `receive_upload` screen each content the way every upload is
screened (bff/files/screening.py: the malware scan, then the content checks) BEFORE it becomes
an item; a refusal is audited there and nothing is kept but the quarantine's copy.

Crash safety: the bytes are staged first (storage's staging area, no row names them), then one
transaction creates the item, moves the staged bytes to `.bff-intake/{object_id}` and records
`intake_received`. A crash before the commit leaves at most a stray staged object (the upload
sweep removes staged objects no pending upload names: bff/files/staging.py `sweep`) or an
object under `.bff-intake/` no item names (`sweep_orphans` removes those, and the thumbnails of
bytes no item names: bff/intake/thumbnails.py); never an item without its bytes. The same
content (sha256) is never taken twice while its item waits in the inbox: that item is answered
(two processes taking it at once: one commits, the other's unique violation answers the first's
item). Once filed or deleted, the same content is taken again as a new item.

Live events go to admins and the staff granted the intake permission, worked out when each is
sent (`intake_rooms`), so a withdrawal takes effect at once for live connections too.
"""

from __future__ import annotations

import hashlib
import logging
import unicodedata
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Protocol

from tortoise.exceptions import IntegrityError

from bff.audit.service import Actor, record
from bff.db import transaction
from bff.errors import ApiError
from bff.files import staging
from bff.files.names import content_type_for, id_time, new_id
from bff.files.screening import Screening
from bff.intake import repository
from bff.intake.models import IntakeItem, Source, Status
from bff.intake.pages import page_count
from bff.intake.schemas import DeletedOut, FiledOut, IntakeItemOut
from bff.intake.workspace import file_chunks
from bff.live.events import ADMINS, INTAKE_RECEIVED, publish, user_room
from bff.scan.service import HELD, RETRY_AFTER_SECONDS, UNAVAILABLE_MESSAGE, Place
from bff.services import running_services
from storage.base import PREVIEWS_DIR, ObjectKey, Storage, StorageError

log = logging.getLogger(__name__)

# The intake's own area of storage: `.bff-intake/{object_id}` (an item's bytes),
# `.bff-intake/.bff-previews/{object_id}.webp` (the thumbnail of those bytes: thumbnails.py) and
# `.bff-intake/.bff-quarantine/{id}` (content the scanner found on its way in).
INTAKE_AREA = ".bff-intake"
THUMBNAIL_SUFFIX = ".webp"
# Where intake content is on its way to, as the quarantine and the refusals' audit entries name
# it: a container name no container can have, no folder.
PLACE = Place(INTAKE_AREA, "", ObjectKey.reserved(INTAKE_AREA))
# The scanner and the mailbox, as the audit log names them.
INTAKE_ACTOR = Actor(None, "intake", "", "")
ITEM_NOT_FOUND = "Intake item not found."
UNNAMED = "document"


class IncomingDocument(Protocol):
    """What the scan folder and the mailbox hand over (bff/intake/incoming.py's `Incoming`)."""

    @property
    def source(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def path(self) -> Path: ...
    @property
    def sha256(self) -> str: ...
    @property
    def sender(self) -> str: ...
    @property
    def subject(self) -> str: ...
    @property
    def message_id(self) -> str: ...


@dataclass(frozen=True)
class Arrival:
    """What is known of a document before its bytes are read."""

    source: Source
    name: str
    declared_type: str | None = None
    sender: str = ""
    subject: str = ""
    message_id: str = ""


def item_key(object_id: str) -> ObjectKey:
    """Where an item's bytes are kept."""
    return ObjectKey.reserved(INTAKE_AREA, object_id)


def thumbnail_key(object_id: str) -> ObjectKey:
    """Where the thumbnail of an item's bytes `object_id` is kept (bff/intake/thumbnails.py):
    named by the content, so new bytes (a turn) have a new one."""
    return ObjectKey.reserved(INTAKE_AREA, PREVIEWS_DIR, object_id + THUMBNAIL_SUFFIX)


async def forget_thumbnail(storage: Storage, object_id: str) -> None:
    """Remove the thumbnail of bytes that are removed (or were never kept), if there is one; a
    failure is left to `sweep_orphans` (no item names those bytes any more)."""
    try:
        await storage.delete_object(thumbnail_key(object_id))
    except (StorageError, OSError):
        log.warning("An intake thumbnail could not be removed yet; the housekeeping will.")


def _shown(text: str, limit: int) -> str:
    """Text from outside (a file or attachment name, a mail header) kept for display: NFC,
    without control or format characters, at most limit characters."""
    text = unicodedata.normalize("NFC", text)
    kept = "".join(ch for ch in text if unicodedata.category(ch) not in ("Cc", "Cf", "Cs"))
    return kept.strip()[:limit]


def display_name(name: str) -> str:
    """A document's own name as the inbox shows it (its last path segment)."""
    base = name.replace("\\", "/").rsplit("/", 1)[-1]
    return _shown(base, 200) or UNNAMED


async def intake_rooms() -> list[str]:
    """Who hears intake events: admins and the staff granted the intake permission now."""
    return [ADMINS, *(user_room(user_id) for user_id in await repository.holder_ids())]


def item_out(item: IntakeItem, thumbnail_url: str | None = None) -> IntakeItemOut:
    """The inbox's shape of an item (with its thumbnail's link, when the caller signed one)."""
    filed = deleted = None
    if item.filed_at is not None:
        filed = FiledOut(
            container=item.filed_container,
            folder=item.filed_folder,
            name=item.filed_name,
            by=item.filed_by_name,
            at=item.filed_at,
        )
    if item.deleted_at is not None:
        deleted = DeletedOut(
            by=item.deleted_by_name, at=item.deleted_at, reason=item.deleted_reason
        )
    return IntakeItemOut(
        id=item.id,
        source=item.source.value,
        fileName=item.file_name,
        sender=item.sender,
        subject=item.subject,
        messageId=item.message_id,
        contentType=item.content_type,
        size=item.size,
        pages=item.page_count,
        status=item.status.value,
        suggestion=item.suggestion,
        routing=item.routing
        if item.status == Status.NEW and item.routing in ("pending", "claimed")
        else "done",
        problems=list(item.problems or []),
        receivedAt=item.received_at,
        receivedBy=item.received_by_name,
        contentUrl=f"/api/intake/items/{item.id}/content",
        thumbnailUrl=thumbnail_url,
        filed=filed,
        deleted=deleted,
    )


class _Hashed:
    """A content's sha256 and size, counted as its chunks pass."""

    def __init__(self) -> None:
        self.digest = hashlib.sha256()
        self.size = 0

    async def watch(self, chunks: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
        async for chunk in chunks:
            self.digest.update(chunk)
            self.size += len(chunk)
            yield chunk


async def _remove_staged(storage: Storage, key: str) -> None:
    try:
        await storage.delete_staged(key)
    except (StorageError, OSError):
        log.warning("Could not remove an intake document's staged bytes; the sweep will.")


async def _commit(
    storage: Storage,
    key: str,
    arrival: Arrival,
    hashed: _Hashed,
    content_type: str,
    pages: int | None,
    actor: Actor,
    values: dict[str, Any] | None = None,
) -> IntakeItem:
    """The item (with values, e.g. a split part's routing), its bytes moved from staging to
    `.bff-intake/`, its audit entry and event: one transaction; then the router is woken.
    IntegrityError when another process took the same content first."""
    now = datetime.now(UTC)
    object_id = new_id(now)
    target = item_key(object_id)
    moved = False
    try:
        async with transaction() as conn:
            item = await repository.create_item(
                conn,
                {
                    "source": arrival.source,
                    "file_name": display_name(arrival.name),
                    "sender": _shown(arrival.sender, 320),
                    "subject": _shown(arrival.subject, 998),
                    "message_id": _shown(arrival.message_id, 998),
                    "sha256": hashed.digest.hexdigest(),
                    "object_id": object_id,
                    "content_type": content_type,
                    "size": hashed.size,
                    "page_count": pages,
                    "received_at": now,
                    "received_by_id": actor.user_id,
                    "received_by_name": actor.name if actor.user_id is not None else "",
                    **(values or {}),
                },
            )
            await storage.keep_staged(key, target)
            moved = True
            await record(
                conn,
                actor,
                "intake_received",
                details=f"item={item.id} source={arrival.source.value} size={hashed.size}"
                + (f" pages={pages}" if pages is not None else ""),
            )
            publish(INTAKE_RECEIVED, {"id": item.id}, intake_rooms)
    except BaseException:
        if moved:  # the transaction did not commit: nothing names the moved bytes
            try:
                await storage.delete_object(target)
            except (StorageError, OSError):
                log.warning("An uncommitted intake object stays until sweep_orphans runs.")
        raise
    services = running_services()
    if services is not None and services.intake_router is not None:
        services.intake_router.wake()  # routed in the background (bff/intake/routing.py)
    return item


async def waiting_with(sha256: str) -> IntakeItem | None:
    """The item still in the inbox (new) with this content, or None: only one such item can
    exist (migration 0039's unique index on sha256 where status is new)."""
    return await IntakeItem.filter(sha256=sha256, status=Status.NEW).order_by("id").first()


async def take_in(
    chunks: AsyncIterator[bytes],
    arrival: Arrival,
    storage: Storage,
    actor: Actor,
    *,
    known_sha256: str | None = None,
    values: dict[str, Any] | None = None,
) -> tuple[IntakeItem, bool]:
    """Screen a document's bytes and make it an item: (the item, whether it is new). The same
    content still waiting in the inbox (new) answers its item (nothing else kept); content
    filed or deleted before comes in again as a new item (a lab re-sending a document deleted
    by mistake). ApiError:
    422 refused by the scan or the content checks (audited `file_rejected`, an infected one
    quarantined), 503 when the scanner is unavailable (taken again later: never held)."""
    if known_sha256 and (existing := await waiting_with(known_sha256)):
        return existing, False
    content_type = content_type_for(display_name(arrival.name), arrival.declared_type)
    screening = Screening(display_name(arrival.name), content_type)
    hashed = _Hashed()
    key = staging.staging_key()
    kept = False
    try:
        await storage.write_staged(
            key, hashed.watch(screening.watch(chunks)), content_type=content_type
        )
        screened = await screening.verdict(storage, key, PLACE, actor)
        if screened.scanned.state == HELD:
            # An intake document is never held unscanned: it stays where it came from (the
            # scan folder, the mailbox) or the uploader tries again, and is taken then.
            raise ApiError(503, UNAVAILABLE_MESSAGE, {"Retry-After": str(RETRY_AFTER_SECONDS)})
        if existing := await waiting_with(hashed.digest.hexdigest()):
            return existing, False
        pages = await page_count(storage, key, content_type)
        try:
            item = await _commit(storage, key, arrival, hashed, content_type, pages, actor, values)
        except IntegrityError:  # the same content committed by another process meanwhile
            existing = await waiting_with(hashed.digest.hexdigest())
            if existing is None:
                raise
            return existing, False
        kept = True
        return item, True
    finally:
        if not kept:
            await _remove_staged(storage, key)


async def receive(incoming: IncomingDocument, storage: Storage) -> IntakeItem:
    """Take a document from the scan folder or the mailbox (screened, kept, audited and
    announced; its existing item if the content was taken before). Raises ApiError as
    `take_in` does: the caller leaves the document where it is on a 503 and may mark it done
    on a 422 (the refusal is recorded, the quarantine holds an infected one)."""
    arrival = Arrival(
        Source(incoming.source),
        incoming.name,
        sender=incoming.sender,
        subject=incoming.subject,
        message_id=incoming.message_id,
    )
    item, _ = await take_in(
        file_chunks(incoming.path),
        arrival,
        storage,
        INTAKE_ACTOR,
        known_sha256=incoming.sha256,
    )
    return item


async def take(incoming: IncomingDocument) -> None:
    """The scan folder's and the mailbox's `Take` (bff/intake/incoming.py): `receive` with the
    app's storage. A refusal of the content (422: infected, kept in quarantine; or the content
    checks) is recorded and final, so it returns and the document is marked done there; any
    other failure (503: the scanner unavailable; storage, the database) raises, so the
    document stays where it is and is taken again later."""
    services = running_services()
    if services is None:
        raise RuntimeError("The intake takes documents only inside a running app.")
    try:
        await receive(incoming, services.storage)
    except ApiError as refusal:
        if refusal.status != 422:
            raise
        log.info("An intake document was refused (%s): recorded, not kept", refusal.status)


async def find_item(item_id: int) -> IntakeItem:
    """An item by id, or 404."""
    item = await repository.item_by_id(item_id)
    if item is None:
        raise ApiError(404, ITEM_NOT_FOUND)
    return item


def _named_content(key: ObjectKey) -> str | None:
    """The object id an object under `.bff-intake/` belongs to: its own name for an item's
    bytes, the bytes' for a thumbnail; None for anything else (the quarantine)."""
    if len(key.segments) == 2:
        return key.name
    if (
        len(key.segments) == 3
        and key.segments[1] == PREVIEWS_DIR
        and key.name.endswith(THUMBNAIL_SUFFIX)
    ):
        return key.name[: -len(THUMBNAIL_SUFFIX)]
    return None


async def sweep_orphans(storage: Storage, grace: timedelta, now: datetime | None = None) -> int:
    """Remove objects under `.bff-intake/` (not its quarantine) that no item names and that are
    older than grace: bytes moved by a transaction that never committed (a crash), and
    thumbnails of bytes no item names (a crash or a failed removal between an item's bytes and
    its thumbnail, a turn that did not commit, a thumbnail drawn while its item was filed or
    turned). How many."""
    cutoff = (now or datetime.now(UTC)) - grace
    removed = 0
    async for info in storage.walk(ObjectKey.reserved(INTAKE_AREA)):
        key = ObjectKey.parse(info.name)
        object_id = _named_content(key)
        if object_id is None or info.last_modified >= cutoff:
            continue
        made = id_time(object_id)
        if made is None or made >= cutoff:
            continue
        if await repository.item_by_object_id(object_id) is None:
            removed += int(await storage.delete_object(key))
    return removed
