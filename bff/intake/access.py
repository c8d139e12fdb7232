"""Who may still read an intake item, and how each read is audited (review #5).

A filed item's document lives in the patient's folder from then on: its content is refused here
(410, pointing to the folder), its bytes under `.bff-intake/` and their thumbnail are removed
once the file in the folder is committed (`forget_filed`, right after the filing, and
`purge_filed` in the housekeeping for any left behind by a failure), and its suggestion keeps
the folder and the evidence's kinds and spans but not the patient's text. Every read of an item
(its detail, its content) is audited `intake_view` with the folder it was filed to, or else the
folder suggested for it, so the patient's access report shows who read a document about them in
the intake."""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta
from typing import Any

from bff.audit.service import Actor, record_alone
from bff.errors import ApiError
from bff.intake.models import IntakeItem, Status
from bff.intake.repository import GONE
from bff.intake.service import forget_thumbnail, item_key
from storage.base import Storage, StorageError

log = logging.getLogger(__name__)

FILED_ELSEWHERE = "This document was filed to a patient's folder: open it there."
# How long a filed item's bytes may outlive its filing when their removal right after it failed.
FILED_GRACE = timedelta(minutes=10)


def item_folder(item: IntakeItem) -> tuple[str, str]:
    """The (container, folder) an item is about: where it was filed, else where it was
    suggested; ("", "") for neither."""
    if item.status == Status.FILED and item.filed_container:
        return item.filed_container, item.filed_folder
    suggestion = item.suggestion if isinstance(item.suggestion, dict) else {}
    container, folder = suggestion.get("container"), suggestion.get("folder")
    if isinstance(container, str) and isinstance(folder, str):
        return container, folder
    return "", ""


async def record_read(actor: Actor, item: IntakeItem, part: str) -> None:
    """Audit a read of item (part: detail or content) as `intake_view`, in its folder."""
    container, folder = item_folder(item)
    await record_alone(
        actor,
        "intake_view",
        container=container,
        folder=folder,
        details=f"item={item.id} {part} status={item.status.value}",
    )


def readable(item: IntakeItem) -> None:
    """410 for a filed item's content: the patient's folder is where it is read now."""
    if item.status == Status.FILED:
        raise ApiError(410, FILED_ELSEWHERE)


def without_text(suggestion: Any) -> Any:
    """A suggestion without the patient's text: each evidence's kind and span stay."""
    if not isinstance(suggestion, dict):
        return suggestion
    evidence = suggestion.get("evidence")
    if not isinstance(evidence, list):
        return suggestion
    kept = [{**e, "text": ""} if isinstance(e, dict) else e for e in evidence]
    return {**suggestion, "evidence": kept}


async def forget_filed(item_id: int, object_id: str, storage: Storage) -> bool:
    """Remove a filed item's bytes `object_id` (its file in the folder is committed) and their
    thumbnail, and mark them gone; whether it did (False: the housekeeping tries again later;
    a thumbnail whose removal failed is the sweep's once no item names its bytes)."""
    try:
        await storage.delete_object(item_key(object_id))
    except (StorageError, OSError):
        log.warning("A filed intake item's bytes could not be removed yet; the housekeeping will.")
        return False
    await forget_thumbnail(storage, object_id)
    await IntakeItem.filter(id=item_id, status=Status.FILED).update(object_id=f"{GONE}{item_id}")
    return True


async def purge_filed(storage: Storage, now: datetime | None = None, limit: int = 500) -> int:
    """Remove the bytes of items filed more than FILED_GRACE ago still kept (a removal right
    after the filing failed); how many."""
    cutoff = (now or datetime.now(UTC)) - FILED_GRACE
    rows = (
        await IntakeItem.filter(status=Status.FILED, filed_at__lt=cutoff)
        .exclude(object_id__startswith=GONE)
        .order_by("filed_at")
        .limit(limit)
    )
    removed = 0
    for item in rows:
        removed += int(await forget_filed(item.id, item.object_id, storage))
    return removed
