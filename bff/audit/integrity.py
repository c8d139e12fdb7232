"""The audit log's integrity: verifying the keyed chain (chain.py), and signed checkpoints kept
in the file storage, outside the database, under the reserved prefix `.bff-audit/` (signed.py).

A checkpoint records the newest entry's id and hash, how many entries the log held up to it,
the last unkeyed entry (`audit_legacy`) and the time, signed with a key derived from the audit
key. It is written as `.bff-audit/checkpoints/{last id}.json` and copied to
`.bff-audit/latest.json`. Someone who can write to the database but has no key can neither
recompute the chain after an edit nor move a checkpoint, so deleting the newest entries, editing,
inserting or reordering any entry up to the latest checkpoint is found. Entries after it are
checked by the chain alone, and the newest of them by the signed head (head.py).

The running server writes one every BFF_AUDIT_CHECKPOINT_MINUTES when there are new entries
(one instance at a time: the `audit-checkpoint` lease), verifying the entries since the
previous one first; a break it finds is kept as a signed `.bff-audit/alert.json` the web app
shows until an operator has dealt with it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from bff.audit import repository
from bff.audit.chain import GENESIS, Checkpoint, Walk, walk_chain
from bff.audit.head import head_break, read_head
from bff.audit.signed import (
    PREFIX,
    Break,
    raise_alert,
    read_object,
    signed,
    stamp,
    unsigned,
    write_object,
)
from bff.leases import Periodic, leased
from config.settings import Settings
from storage.base import ObjectKey, Storage

CHECKPOINTS = f"{PREFIX}/checkpoints"
LATEST = f"{PREFIX}/latest.json"
CHECKPOINT_LEASE = "audit-checkpoint"


def checkpoint_key(last_id: int) -> str:
    """The object key of the checkpoint at entry last_id (sorts by id as text)."""
    return f"{CHECKPOINTS}/{last_id:020d}.json"


async def read_checkpoints(storage: Storage) -> tuple[list[Checkpoint], list[Break]]:
    """Every checkpoint in the storage, oldest first, and a break for each one that was altered
    (its signature does not match, or its name and content disagree)."""
    checkpoints: list[Checkpoint] = []
    altered: list[Break] = []
    async for info in storage.walk(ObjectKey.parse(CHECKPOINTS)):
        stem = info.name.rsplit("/", 1)[-1].removesuffix(".json")
        named_id = int(stem) if stem.isdigit() else 0
        data = await read_object(storage, info.name)
        body = unsigned(data or b"")
        checkpoint = Checkpoint.from_body(body) if body is not None else None
        if checkpoint is None or checkpoint.last_id != named_id:
            altered.append(
                Break(named_id, f"checkpoint {info.name} was altered (signature does not match)")
            )
        else:
            checkpoints.append(checkpoint)
    checkpoints.sort(key=lambda c: c.last_id)
    return checkpoints, altered


@dataclass(frozen=True)
class Verification:
    """What `audit verify` found."""

    count: int  # entries verified (up to the break, if any)
    broken: Break | None
    checkpoints: int  # valid checkpoints checked
    latest: Checkpoint | None
    after_latest: int  # entries after the latest checkpoint (checked by the chain alone)


async def verify_log(storage: Storage) -> Verification:
    """Check the whole chain and every checkpoint; the first break by entry id, if any."""
    checkpoints, altered = await read_checkpoints(storage)
    legacy_last_id = await repository.legacy_last_id()
    breaks = list(altered)
    for checkpoint in checkpoints:
        if checkpoint.legacy_last_id != legacy_last_id:
            first = min(checkpoint.legacy_last_id, legacy_last_id) + 1
            breaks.append(Break(first, "the boundary between unkeyed and keyed entries moved"))
    walk = await walk_chain(GENESIS, legacy_last_id, checkpoints)
    if walk.broken is not None:
        breaks.append(walk.broken)
    head_broken = await head_break(*await read_head(storage))
    if head_broken is not None:
        breaks.append(head_broken)
    latest = checkpoints[-1] if checkpoints else None
    return Verification(
        count=walk.count,
        broken=min(breaks, key=lambda b: b.entry_id) if breaks else None,
        checkpoints=len(checkpoints),
        latest=latest,
        after_latest=walk.count - (latest.count if latest else 0),
    )


async def latest_checkpoint(storage: Storage) -> tuple[Checkpoint | None, bool]:
    """The latest checkpoint, and whether the copy in the storage was altered."""
    data = await read_object(storage, LATEST)
    if data is None:
        return None, False
    body = unsigned(data)
    checkpoint = Checkpoint.from_body(body) if body is not None else None
    return checkpoint, checkpoint is None


@dataclass(frozen=True)
class CheckpointResult:
    """What one checkpoint run did."""

    written: Checkpoint | None = None  # the new checkpoint
    unchanged: Checkpoint | None = None  # no new entries since this one
    broken: Break | None = None  # the verification since the previous checkpoint failed
    busy: bool = False  # another process holds the lease


async def write_checkpoint(storage: Storage, lease_seconds: float = 600) -> CheckpointResult:
    """Verify the entries since the latest checkpoint, then sign and store a new one at the
    newest entry (nothing if there is none new); a break is kept as the alert instead. One
    process at a time."""
    async with leased(CHECKPOINT_LEASE, lease_seconds) as held:
        if not held:
            return CheckpointResult(busy=True)
        latest, altered = await latest_checkpoint(storage)
        head = await repository.head()
        broken: Break | None = await head_break(*await read_head(storage))
        walk = GENESIS  # replaced by the walk since the latest checkpoint below
        if broken is not None:
            pass  # the newest entries are gone or changed: no checkpoint over them
        elif altered:
            broken = Break(0, f"{LATEST} was altered (its signature does not match)")
        elif head is None and latest is None:
            return CheckpointResult()
        elif latest is not None and (head is None or head[0] < latest.last_id):
            last = head[0] if head else 0
            broken = Break(
                last + 1,
                f"missing: the checkpoint of {stamp(latest.time)} recorded "
                f"entries up to {latest.last_id}; the log ends at entry {last}",
            )
        elif latest is not None and head is not None and head[0] == latest.last_id:
            if head[1] != latest.last_hash:
                broken = Break(head[0], f"differs from the checkpoint of {stamp(latest.time)}")
            else:
                return CheckpointResult(unchanged=latest)
        if broken is None:
            assert head is not None
            legacy_last_id = await repository.legacy_last_id()
            start = Walk(latest.last_id, latest.last_hash, latest.count) if latest else GENESIS
            if latest is not None and latest.legacy_last_id != legacy_last_id:
                broken = Break(
                    min(latest.legacy_last_id, legacy_last_id) + 1,
                    "the boundary between unkeyed and keyed entries moved",
                )
            else:
                walk = await walk_chain(start, legacy_last_id, [], up_to=head[0])
                broken = walk.broken
        if broken is not None:
            await raise_alert(storage, broken)
            return CheckpointResult(broken=broken)
        checkpoint = Checkpoint(
            walk.last_id, walk.last_hash, walk.count, legacy_last_id, datetime.now(UTC)
        )
        data = signed(checkpoint.body())
        await write_object(storage, checkpoint_key(checkpoint.last_id), data)
        await write_object(storage, LATEST, data)
        return CheckpointResult(written=checkpoint)


def checkpointer(storage: Storage, settings: Settings) -> Periodic:
    """A checkpoint every BFF_AUDIT_CHECKPOINT_MINUTES, the first one interval after start."""
    interval = settings.audit_checkpoint_minutes * 60
    lease = max(60.0, 2 * interval)
    return Periodic(
        interval,
        [("Audit checkpoint", lambda: write_checkpoint(storage, lease))],
        at_start=False,
    )
