"""Every query of the intake's items, and who holds the intake permission."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from tortoise.backends.base.client import BaseDBAsyncClient
from tortoise.expressions import F, Q

from bff.intake.models import IntakeItem, Status
from bff.users.models import Role, User

GONE = "gone-"  # an object_id so marked: the bytes were removed (a deleted item past retention)


async def item_by_id(item_id: int, conn: BaseDBAsyncClient | None = None) -> IntakeItem | None:
    """An item by id (inside transaction conn when given), or None."""
    query = IntakeItem.filter(id=item_id)
    return await (query.using_db(conn) if conn is not None else query).first()


async def item_by_sha256(sha256: str) -> IntakeItem | None:
    """The item of a content by its sha256 (whatever its status), or None."""
    return await IntakeItem.get_or_none(sha256=sha256)


async def item_by_object_id(object_id: str) -> IntakeItem | None:
    """The item whose bytes are `.bff-intake/{object_id}`, or None."""
    return await IntakeItem.get_or_none(object_id=object_id)


async def create_item(conn: BaseDBAsyncClient, values: dict[str, Any]) -> IntakeItem:
    """A new item inside transaction conn (IntegrityError when its sha256 is already taken)."""
    return await IntakeItem.create(using_db=conn, **values)


async def items_page(
    offset: int, limit: int, status: Status | None
) -> tuple[list[IntakeItem], int]:
    """A page of items, newest first (of one status, or all), and how many there are; a split's
    parts held until its original is settled (HELD) are not shown."""
    query = IntakeItem.exclude(routing=HELD)
    query = query if status is None else query.filter(status=status)
    total = await query.count()
    rows = await query.order_by("-received_at", "-id").offset(offset).limit(limit)
    return list(rows), total


async def settle_new(conn: BaseDBAsyncClient, item_id: int, values: dict[str, Any]) -> bool:
    """Inside transaction conn: set values (filed or deleted) on the item only if it is still
    new, in one conditional UPDATE (on PostgreSQL a second one waits for the first's commit,
    then finds it settled); whether this one did."""
    changed = await IntakeItem.filter(id=item_id, status=Status.NEW).using_db(conn).update(**values)
    return bool(changed)


async def set_suggestion(
    conn: BaseDBAsyncClient | None,
    item_id: int,
    suggestion: dict[str, Any] | None,
    *,
    first: bool = False,
) -> bool:
    """Keep a new item's patient suggestion and its evidence (bff/intake/suggest.py's, as
    JSON; None: unmatched), inside transaction conn when given; whether it did (the item was
    new and, with `first`, had no suggestion yet: a routing taken again after its process
    died keeps the one it made, audited once)."""
    query = IntakeItem.filter(id=item_id, status=Status.NEW)
    if first:
        query = query.filter(suggestion__isnull=True)
    changed = await (query.using_db(conn) if conn is not None else query).update(
        suggestion=suggestion
    )
    return bool(changed)


async def replace_bytes(
    conn: BaseDBAsyncClient, item_id: int, old_object_id: str, new_object_id: str, size: int
) -> bool:
    """Inside transaction conn: point a new item at new bytes, only if it is still new and has
    the old ones (one conditional UPDATE); whether it did."""
    changed = (
        await IntakeItem.filter(id=item_id, status=Status.NEW, object_id=old_object_id)
        .using_db(conn)
        .update(object_id=new_object_id, size=size)
    )
    return bool(changed)


async def holder_ids() -> list[int]:
    """The ids of staff other than admins granted the intake permission (admins always have
    it and are reached through the admins room)."""
    rows: list[Any] = (
        await User.filter(intake=True).exclude(role=Role.ADMIN).values_list("id", flat=True)
    )
    return [int(row) for row in rows]


async def deleted_before(cutoff: Any, limit: int) -> list[IntakeItem]:
    """Deleted items whose bytes are still kept, deleted before cutoff (oldest first)."""
    rows = (
        await IntakeItem.filter(status=Status.DELETED, deleted_at__lt=cutoff)
        .exclude(object_id__startswith=GONE)
        .order_by("deleted_at")
        .limit(limit)
    )
    return list(rows)


async def forget_bytes(item_id: int) -> None:
    """Record that a deleted item's bytes were removed (its row stays: the hash is never taken
    again, the audit trail keeps its meaning)."""
    await IntakeItem.filter(id=item_id, status=Status.DELETED).update(object_id=f"{GONE}{item_id}")


# --- Routing (bff/intake/routing.py): one process claims an item at a time ---------------------

PENDING, CLAIMED, DONE = "pending", "claimed", "done"
# A split's part taken in but not yet its own (reshaping.split_item): not shown in the inbox,
# not routed, until the split's original is settled in the transaction that activates it.
HELD = "held"


def _claimable(now: datetime, holder: str) -> Q:
    """Still new, and pending, or claimed by holder, or claimed by a process whose claim ran out
    (it died, or stopped without giving it back)."""
    return Q(status=Status.NEW) & (
        Q(routing=PENDING)
        | (Q(routing=CLAIMED) & (Q(routing_holder=holder) | Q(routing_until__lt=now)))
    )


async def routable_ids(now: datetime, limit: int) -> list[int]:
    """New items waiting to be routed (pending, or their claim ran out), oldest first."""
    due = Q(status=Status.NEW) & (
        Q(routing=PENDING) | (Q(routing=CLAIMED) & Q(routing_until__lt=now))
    )
    rows: list[Any] = (
        await IntakeItem.filter(due).order_by("id").limit(limit).values_list("id", flat=True)
    )
    return [int(row) for row in rows]


async def claim_routing(item_id: int, holder: str, now: datetime, until: datetime) -> bool:
    """Claim a new item's routing for holder until a time, in one conditional UPDATE (of two
    processes at once exactly one gets it); whether holder did."""
    changed = await IntakeItem.filter(Q(id=item_id) & _claimable(now, holder)).update(
        routing=CLAIMED,
        routing_holder=holder,
        routing_until=until,
        routing_attempts=F("routing_attempts") + 1,
    )
    return bool(changed)


async def renew_routing(item_id: int, holder: str, until: datetime) -> bool:
    """Hold holder's claim longer (before a long step); whether it still stood."""
    changed = await IntakeItem.filter(
        id=item_id, status=Status.NEW, routing=CLAIMED, routing_holder=holder
    ).update(routing_until=until)
    return bool(changed)


async def end_routing(
    conn: BaseDBAsyncClient | None, item_id: int, holder: str, problems: list[str] | None
) -> bool:
    """Mark an item routed by holder (with the problems found, None: none), only while holder's
    claim stands; whether it did."""
    values: dict[str, Any] = {"routing": DONE, "routing_until": None}
    if problems:
        values["problems"] = problems
    query = IntakeItem.filter(id=item_id, routing=CLAIMED, routing_holder=holder)
    return bool(await (query.using_db(conn) if conn is not None else query).update(**values))


async def give_back_routing(item_id: int, holder: str) -> None:
    """Give a claim back (pending again), when holder could not route it now (busy, stopping)."""
    await IntakeItem.filter(id=item_id, routing=CLAIMED, routing_holder=holder).update(
        routing=PENDING, routing_until=None, routing_attempts=F("routing_attempts") - 1
    )


# --- Splitting (bff/intake/reshaping.py): parts held until their original is settled ------------


async def settle_split(
    conn: BaseDBAsyncClient, item_id: int, object_id: str, values: dict[str, Any]
) -> bool:
    """Inside transaction conn: set values on the item only if it is still new and still has
    the bytes that were split (not turned meanwhile); whether this one did."""
    query = IntakeItem.filter(id=item_id, status=Status.NEW, object_id=object_id)
    return bool(await query.using_db(conn).update(**values))


async def activate_part(conn: BaseDBAsyncClient, part_id: int, values: dict[str, Any]) -> bool:
    """Inside transaction conn: make a held part an item of the inbox with values (its
    routing: pending, or claimed with its cover sheet's route); whether it was held."""
    query = IntakeItem.filter(id=part_id, status=Status.NEW, routing=HELD).using_db(conn)
    return bool(await query.update(**{"routing": PENDING, **values}))


async def discard_held(conn: BaseDBAsyncClient, part_id: int, values: dict[str, Any]) -> bool:
    """Inside transaction conn: set values (deleted) on a part only while it is still held, in
    one conditional UPDATE (of this and `activate_part` at once exactly one wins); whether it
    did."""
    query = IntakeItem.filter(id=part_id, status=Status.NEW, routing=HELD).using_db(conn)
    return bool(await query.update(**values))


async def held_before(cutoff: datetime, limit: int) -> list[IntakeItem]:
    """Parts held since before cutoff (their split never finished: its process died, and the
    split was not done again), oldest first."""
    rows = (
        await IntakeItem.filter(status=Status.NEW, routing=HELD, received_at__lt=cutoff)
        .order_by("id")
        .limit(limit)
    )
    return list(rows)
