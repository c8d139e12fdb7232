"""The audit log's signed head (`.bff-audit/head.json`: the newest entry's id and hash), which
follows the log within a second of each commit, so that deleting the newest entries is found by
`audit verify` and by the next head write or checkpoint, not only after the next checkpoint.

Heads are written under the `audit-head` lease and only forward: the writer reads the newest
committed entry while holding it, so a slower process never puts back an older head, and it
refuses to move past a head whose entry is gone or changed (an alert instead).
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import logging
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from bff.audit import repository
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
from bff.leases import leased
from bff.waits import wait_set
from storage.base import Storage

log = logging.getLogger(__name__)

HEAD = f"{PREFIX}/head.json"
HEAD_FORMAT = "bff-audit-head/1"
HEAD_LEASE = "audit-head"
HEAD_SECONDS = 1.0  # at most one head write a second per process
HEAD_LEASE_SECONDS = 15.0  # a process that dies writing a head holds the others back this long


@dataclass(frozen=True)
class Head:
    """The newest entry when the signed head was written: the tail the table must still hold."""

    last_id: int
    last_hash: str
    time: datetime

    def body(self) -> dict[str, Any]:
        """The signed content (its format differs from a checkpoint's: neither passes for the
        other)."""
        return {
            "format": HEAD_FORMAT,
            "lastId": self.last_id,
            "lastHash": self.last_hash,
            "time": self.time.astimezone(UTC).isoformat(timespec="microseconds"),
        }


async def read_head(storage: Storage) -> tuple[Head | None, bool]:
    """The signed head, and whether the copy in the storage was altered."""
    data = await read_object(storage, HEAD)
    if data is None:
        return None, False
    body = unsigned(data)
    try:
        assert body is not None and body["format"] == HEAD_FORMAT
        head = Head(
            int(body["lastId"]), str(body["lastHash"]), datetime.fromisoformat(body["time"])
        )
    except (AssertionError, KeyError, TypeError, ValueError):
        return None, True
    return head, False


async def head_break(head: Head | None, altered: bool) -> Break | None:
    """Where the log no longer holds the tail the signed head recorded (None: it does)."""
    if altered:
        return Break(0, f"{HEAD} was altered (its signature does not match)")
    if head is None:
        return None
    when = stamp(head.time)
    found = await repository.hash_of(head.last_id)
    if found is None:
        before = await repository.last_id_before(head.last_id)
        return Break(
            before + 1,
            f"missing: the signed head of {when} recorded entries up to {head.last_id}; the "
            f"log holds none after entry {before or 'none'} up to it (deleted)",
        )
    if not hmac.compare_digest(found, head.last_hash):
        return Break(head.last_id, f"differs from the signed head of {when}")
    return None


@dataclass(frozen=True)
class HeadResult:
    """What one head write did."""

    written: Head | None = None
    broken: Break | None = None  # the stored head's entry is gone or changed: kept as the alert
    busy: bool = False  # another process is writing the head


async def write_head(storage: Storage, lease_seconds: float = HEAD_LEASE_SECONDS) -> HeadResult:
    """Sign the newest committed entry as the head, if it is newer than the stored head and the
    log still holds that one. Under the `audit-head` lease, reading the newest entry inside it,
    so heads only move forward however processes interleave."""
    async with leased(HEAD_LEASE, lease_seconds) as held:
        if not held:
            return HeadResult(busy=True)
        stored, altered = await read_head(storage)
        broken = await head_break(stored, altered)
        if broken is not None:
            await raise_alert(storage, broken)
            return HeadResult(broken=broken)
        newest = await repository.head()
        if newest is None or (stored is not None and newest[0] <= stored.last_id):
            return HeadResult()
        head = Head(newest[0], newest[1], datetime.now(UTC))
        async with asyncio.timeout(lease_seconds / 2):  # done while the lease is surely ours
            await write_object(storage, HEAD, signed(head.body()))
        return HeadResult(written=head)


class HeadWriter:
    """A serving process's head writer: told of every commit that added entries, it writes the
    head at most once every HEAD_SECONDS, and once more when the app stops.

    Whoever must know which heads exist while it works (a test that writes the heads itself,
    or that waits for this writer's) uses `paused()` and `settled()`, never a sleep: the writer
    runs within a second of a commit, later on a loaded machine."""

    def __init__(self, storage: Storage) -> None:
        self._storage = storage
        self._due = False
        self._last = -HEAD_SECONDS
        self._task: asyncio.Task[None] | None = None
        self._stopping: asyncio.Event | None = None
        self._writing = asyncio.Lock()  # held by each head write, and by a pause

    @contextlib.asynccontextmanager
    async def paused(self) -> AsyncIterator[None]:
        """`async with writer.paused()`: no head is written by this writer inside the block (a
        write in progress ends first); one that came due meanwhile is written after it."""
        async with self._writing:
            yield

    async def settled(self) -> None:
        """Wait until nothing is due: every commit this writer was told of is signed, or found
        broken (it keeps trying while another process holds the lease). Not inside a pause."""
        while self._task is not None and not self._task.done():
            await asyncio.wait([self._task])

    def committed(self) -> None:
        """New entries were committed: write the head within HEAD_SECONDS."""
        self._due = True
        if self._task is None or self._task.done():
            if self._stopping is None:
                self._stopping = asyncio.Event()
            self._task = asyncio.get_running_loop().create_task(self._run(self._stopping))

    async def _run(self, stopping: asyncio.Event) -> None:
        while self._due:
            wait = self._last + HEAD_SECONDS - time.monotonic()
            if wait > 0 and not stopping.is_set():
                await wait_set(stopping, wait)
            self._due = False
            self._last = time.monotonic()
            async with self._writing:  # waits out a pause
                try:
                    result = await write_head(self._storage)
                except Exception:
                    log.warning("The audit head was not written.", exc_info=True)
                    result = HeadResult()
            if result.busy and not stopping.is_set():
                self._due = True  # another process holds it: try again after HEAD_SECONDS

    async def stop(self) -> None:
        """Write what is due now, then stop (the app calls it before the database closes)."""
        if self._task is None or self._stopping is None:
            return
        self._stopping.set()
        try:  # a database or storage that does not answer must not hold the shutdown
            await asyncio.wait_for(self._task, HEAD_LEASE_SECONDS / 2)
        except Exception:  # logged; the next head write catches up
            log.warning("The audit head was not written at stop.", exc_info=True)
        self._task, self._stopping = None, None
