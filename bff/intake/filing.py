"""What a person does with an intake item: list the inbox, view an item's content, file it to
a patient's folder, delete it with a reason.

Filing goes the way every upload goes (bff/files/storing.py `store_plain`: screened again,
staged, moved to its name, indexed, announced to the folder's staff as `file:uploaded`), audited
`intake_filed` in the folder (so the patient's access report finds it) with the item and its
source. The file keeps its source (bff/files/sources.py: scanner, mailbox and sender, upload;
by a cover sheet or a person), which the folder's listing shows. The item is marked filed in
the file's own transaction by a conditional UPDATE (only while it is new): of two people filing
one item at once exactly one wins, the other is told "Already filed by {name} at {time}." and
nothing of theirs is stored.

Once filed, the document is the folder's: bff/intake/access.py refuses the item's content
(410), removes its bytes right after the filing commits and clears its suggestion's text.

Deleting keeps the item's row (the record of who deleted it and why; the same content sent
again comes in as a new item) and its bytes (with their thumbnail) for BFF_TRASH_DAYS, like a
deleted file's trash entry, so a mistake can be looked into; `purge_deleted` then removes both.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime, timedelta

from tortoise.backends.base.client import BaseDBAsyncClient

from bff.assignments.access import caller_assignments
from bff.audit.service import Actor, record, record_alone, record_refusal
from bff.containers.service import FOLDER_NOT_FOUND, get_folder
from bff.db import transaction
from bff.errors import ApiError
from bff.files import repository as files_repository
from bff.files import storing
from bff.files.names import PROFILE_IMAGE_NAME, PROFILE_NAME_RESERVED, given_file_name
from bff.files.service import ViewSource, may_see
from bff.files.sources import intake_source
from bff.intake import access, repository
from bff.intake.models import IntakeItem, Status
from bff.intake.repository import GONE
from bff.intake.schemas import FileItem, IntakeItems
from bff.intake.service import find_item, forget_thumbnail, intake_rooms, item_key, item_out
from bff.live.events import INTAKE_DELETED, INTAKE_FILED, publish
from bff.users.models import Role
from storage.base import ReadStream, Storage, StorageError

log = logging.getLogger(__name__)

FILE_ROUTE = "POST /api/intake/items/<int:item_id>/file"
CONTENT_GONE = "This item's content was removed after its deletion."


def _when(at: datetime | None) -> str:
    return f"{at:%Y-%m-%d %H:%M} UTC" if at is not None else "an unknown time"


def settled(item: IntakeItem | None) -> ApiError:
    """The 409 for an item no longer new: who filed or deleted it, and when."""
    if item is not None and item.status == Status.FILED:
        return ApiError(409, f"Already filed by {item.filed_by_name} at {_when(item.filed_at)}.")
    if item is not None and item.status == Status.DELETED:
        return ApiError(
            409, f"Already deleted by {item.deleted_by_name} at {_when(item.deleted_at)}."
        )
    return ApiError(404, "Intake item not found.")


async def list_items(
    page: int,
    page_size: int,
    status: str,
    actor: Actor,
    thumbnail: Callable[[IntakeItem], str | None] | None = None,
) -> IntakeItems:
    """A page of the inbox, newest first (audited `intake_list`), each item with its
    thumbnail's link by `thumbnail` when given (bff/intake/thumbnails.py `links`)."""
    wanted = None if status == "all" else Status(status)
    rows, total = await repository.items_page((page - 1) * page_size, page_size, wanted)
    await record_alone(
        actor, "intake_list", details=f"status={status} page={page} items={len(rows)}"
    )
    return IntakeItems(
        items=[item_out(row, thumbnail(row) if thumbnail else None) for row in rows],
        total=total,
        page=page,
        pageSize=page_size,
    )


async def open_content(item_id: int, actor: Actor, storage: Storage) -> ViewSource:
    """An item's bytes, ready for files/delivery.py's `send_view` (audited `intake_view`)."""
    item = await find_item(item_id)
    access.readable(item)  # 410 once filed: read in the patient's folder
    if item.object_id.startswith(GONE):
        raise ApiError(404, CONTENT_GONE)
    key = item_key(item.object_id)

    async def opener(offset: int, length: int) -> ReadStream:
        return await storage.open_object(key, offset=offset, length=length)

    await access.record_read(actor, item, "content")
    return ViewSource(
        key=key,
        name=item.file_name,
        content_type=item.content_type,
        last_modified=item.received_at,
        size=item.size,
        start=0,
        stop=item.size,
        partial=False,
        open=opener,
    )


async def _seen_folder(container: str, folder: str, actor: Actor) -> None:
    """404 (audited as the policy audits it) unless actor may see the folder: admins see
    every folder, others those assigned to them."""
    if actor.role == Role.ADMIN or actor.user_id is None:
        return
    assignments = await caller_assignments(actor.user_id)
    if not assignments.has_folder(container, folder):
        await record_refusal(actor, 404, FILE_ROUTE, container=container, folder=folder)
        raise ApiError(404, FOLDER_NOT_FOUND)


async def _item_bytes(stream: ReadStream) -> AsyncIterator[bytes]:
    async for chunk in stream:
        yield chunk


async def file_item(
    item_id: int,
    target: FileItem,
    actor: Actor,
    storage: Storage,
    *,
    operation: str = "intake_filed",
    details: str = "",
) -> IntakeItem:
    """File an item to a patient's folder the caller may see, under target.name (default:
    the item's own name). 404: no such item, or a folder the caller cannot see; 409: already
    filed or deleted (by whom, when), or a file of that name already in the folder.
    A cover sheet's routing files as the intake itself (`service.INTAKE_ACTOR`, which sees
    every folder) with operation `intake_routed` and the sheet's id in details."""
    item = await find_item(item_id)
    if item.status != Status.NEW:
        raise settled(item)
    await _seen_folder(target.container, target.folder, actor)
    folder = await get_folder(target.container, target.folder)
    name = given_file_name(target.name or item.file_name)
    if name == PROFILE_IMAGE_NAME:
        raise ApiError(400, PROFILE_NAME_RESERVED)
    await storing.one_spelling(folder, name, actor)
    there = await files_repository.file_named(folder.id, name)
    if there is not None and may_see(there.scan_state, actor):
        raise storing.clash(name)
    container, folder_name = folder.container.name, folder.name

    async def within(conn: BaseDBAsyncClient) -> str:
        now = datetime.now(UTC)
        values = {
            "status": Status.FILED,
            "filed_folder_id": folder.id,
            "filed_container": container,
            "filed_folder": folder_name,
            "filed_name": name,
            "filed_by_id": actor.user_id,
            "filed_by_name": actor.name,
            "filed_at": now,
            "suggestion": access.without_text(item.suggestion),  # the patient's text goes
        }
        if not await repository.settle_new(conn, item.id, values):
            raise settled(await repository.item_by_id(item.id, conn))
        publish(
            INTAKE_FILED,
            {"id": item.id, "container": container, "folder": folder_name, "name": name},
            intake_rooms,
        )
        said = f"from intake item {item.id} (source {item.source.value})"
        return f"{said}; {details}" if details else said

    try:
        stream = await storage.open_object(item_key(item.object_id))
    except StorageError:
        raise ApiError(503, "The item's content could not be read; try again.") from None
    async with stream:  # closed whatever happens to the filing
        await storing.store_plain(
            folder,
            name,
            _item_bytes(stream),
            item.content_type,
            storage,
            actor,
            may_replace=lambda: False,
            operation=operation,
            within=within,
            # Shown on the file's row: where it came from, by its sheet (the routing's
            # `intake_routed`) or by a person.
            source=intake_source(
                item.source.value,
                item.id,
                sender=item.sender,
                cover_sheet=operation == "intake_routed",
            ),
        )
    # Committed: the document is the folder's now; its intake copy goes (else housekeeping's).
    await access.forget_filed(item.id, item.object_id, storage)
    return await find_item(item.id)


async def delete_item(item_id: int, reason: str, actor: Actor) -> IntakeItem:
    """Delete a new item with a reason (audited `intake_deleted`); its bytes are kept for
    BFF_TRASH_DAYS (`purge_deleted`). 409 if it was filed or deleted already."""
    item = await find_item(item_id)
    if item.status != Status.NEW:
        raise settled(item)
    async with transaction() as conn:
        values = {
            "status": Status.DELETED,
            "deleted_by_id": actor.user_id,
            "deleted_by_name": actor.name,
            "deleted_at": datetime.now(UTC),
            "deleted_reason": reason,
        }
        if not await repository.settle_new(conn, item.id, values):
            raise settled(await repository.item_by_id(item.id, conn))
        await record(
            conn,
            actor,
            "intake_deleted",
            details=f"item={item.id} source={item.source.value} reason={reason}",
        )
        publish(INTAKE_DELETED, {"id": item.id}, intake_rooms)
    return await find_item(item.id)


async def purge_deleted(storage: Storage, trash_days: int, now: datetime | None = None) -> int:
    """Remove the bytes (and their thumbnail) of items deleted more than trash_days ago (rows
    stay); how many."""
    cutoff = (now or datetime.now(UTC)) - timedelta(days=trash_days)
    removed = 0
    for item in await repository.deleted_before(cutoff, 500):
        try:
            await storage.delete_object(item_key(item.object_id))
        except StorageError:
            log.warning("A deleted intake item's bytes could not be removed; next time.")
            continue
        await forget_thumbnail(storage, item.object_id)  # a failure: the sweep's
        await repository.forget_bytes(item.id)
        removed += 1
    return removed
