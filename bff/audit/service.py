"""Writing the audit log.

Each entry's hash is an HMAC, with the audit key, over its content and the previous entry's
hash, so editing or deleting any row breaks the chain from that row on, and nobody without the
key can recompute it (entries written before the key existed keep their unkeyed SHA-256).
Verification and checkpoints are in bff/audit/integrity.py. Entries that are part of a change are
written inside its transaction (`record`); entries of reads and refusals are committed in
batches (`record_alone`); a refusal anyone can repeat at will (a public endpoint's, content
refused at upload), or an access repeated as fast as one clicks (text copied in the viewer), is
written once a minute with the count of its repeats (`record_repeated`).
On PostgreSQL an advisory transaction lock keeps the chain linear across processes; SQLite has
one writer.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import json
import time
import weakref
from dataclasses import dataclass
from datetime import UTC, datetime

from tortoise.backends.base.client import BaseDBAsyncClient

from bff import metrics
from bff.audit import repository
from bff.audit.models import AuditLog
from bff.audit.operations import OPERATIONS
from bff.audit.schemas import AuditEntry, AuditPage, AuditQuery
from bff.db import in_transaction, on_commit, transaction, wrote
from bff.live.events import ADMINS, AUDIT_CREATED, publish
from bff.services import running_services
from config.logs import request_id
from config.settings import Settings, load_settings

GENESIS_HASH = "0" * 64


@dataclass(frozen=True)
class Actor:
    """Who did something, as the audit log records it."""

    user_id: int | None
    name: str
    role: str
    client_address: str


def _iso(ts: datetime) -> str:
    return ts.astimezone(UTC).isoformat(timespec="microseconds")


def hashed_content(entry: AuditLog) -> list[object]:
    """What a keyed entry's hash covers, in order (after the previous hash): the one list to
    extend when an entry gains a column."""
    return [
        _iso(entry.timestamp),
        entry.user_id,
        entry.name,
        entry.role,
        entry.operation,
        entry.container_name,
        entry.folder_name,
        entry.blob_name,
        entry.client_address,
        entry.details,
        entry.request_id,
    ]


def _encoded(items: list[object]) -> bytes:
    return json.dumps(items, separators=(",", ":"), ensure_ascii=False).encode()


def legacy_entry_hash(prev_hash: str, entry: AuditLog) -> str:
    """The unkeyed SHA-256 of entries written before the audit key existed (frozen: those
    entries keep these hashes for ever)."""
    content = [
        prev_hash,
        _iso(entry.timestamp),
        *(getattr(entry, f) for f in _LEGACY_COLUMNS),
    ]
    return hashlib.sha256(prev_hash.encode() + _encoded(content)).hexdigest()


_LEGACY_COLUMNS = (
    "user_id",
    "name",
    "role",
    "operation",
    "container_name",
    "folder_name",
    "blob_name",
    "client_address",
    "details",
)


def entry_hash(prev_hash: str, entry: AuditLog, key: bytes | None = None) -> str:
    """An entry's chained hash: HMAC-SHA256 with the audit key (default: this process's) over
    the previous hash and the entry's content, so nobody without the key can recompute it."""
    key = audit_keys().entries if key is None else key
    message = _encoded([prev_hash, *hashed_content(entry)])
    return hmac.new(key, message, hashlib.sha256).hexdigest()


@dataclass(frozen=True)
class AuditKeys:
    """Keys derived from the audit key, one per use, so an entry hash never passes for a
    checkpoint's signature or the other way round."""

    entries: bytes
    checkpoints: bytes

    @classmethod
    def derive(cls, audit_key: bytes) -> AuditKeys:
        """The keys of one audit key."""

        def sub(label: bytes) -> bytes:
            return hmac.new(audit_key, label, hashlib.sha256).digest()

        return cls(sub(b"bff-audit-entries"), sub(b"bff-audit-checkpoints"))


_keys: AuditKeys | None = None


def configure_audit(settings: Settings) -> None:
    """Read the audit key for this process (create_app and the command line call it)."""
    global _keys  # process-wide, like the settings it comes from
    _keys = AuditKeys.derive(settings.audit_signing_key())


def audit_keys() -> AuditKeys:
    """This process's audit keys (read from the settings on first use if not configured)."""
    if _keys is None:
        configure_audit(load_settings())
    assert _keys is not None
    return _keys


def _text(value: str, length: int) -> str:
    """A value cut to its column: names from refused URLs may be of any length, and PostgreSQL
    refuses NUL in text."""
    return value[:length].replace("\x00", "\ufffd")


def _entry(
    actor: Actor, operation: str, container: str, folder: str, blob: str, details: str
) -> AuditLog:
    """An entry not yet linked into the chain."""
    if operation not in OPERATIONS:  # a new operation must be listed (the web app filters by it)
        raise ValueError(
            f"Unknown audit operation {operation!r}: add it to bff/audit/operations.py"
        )
    return AuditLog(
        timestamp=datetime.now(UTC),
        user_id=actor.user_id,
        name=_text(actor.name, 100),
        role=actor.role,
        operation=operation,
        container_name=_text(container, 63),
        folder_name=_text(folder, 100),
        blob_name=_text(blob, 255),
        client_address=actor.client_address[:64],
        details=_text(details, 500),
        request_id=request_id(),
    )


async def _append(conn: BaseDBAsyncClient, entries: list[AuditLog]) -> None:
    """Link entries onto the chain and insert them in one statement, inside transaction conn."""
    await repository.lock_chain(conn)
    prev_hash = await repository.last_hash(conn) or GENESIS_HASH
    key = audit_keys().entries
    for entry in entries:
        entry.prev_hash = prev_hash
        entry.hash = prev_hash = entry_hash(prev_hash, entry, key)
    await repository.insert(conn, entries)
    on_commit(_head_due)


async def _head_due() -> None:
    """Entries were committed: the serving process signs the new head within a second (the
    command line leaves it to the next server write or checkpoint)."""
    services = running_services()
    if services is not None:
        services.audit_head.committed()


def _announce(entries: list[AuditLog]) -> None:
    """Tell admins' screens about new entries (after the commit that holds them)."""
    for entry in entries:
        publish(AUDIT_CREATED, {"id": entry.id, "operation": entry.operation}, [ADMINS])


async def record(
    conn: BaseDBAsyncClient,
    actor: Actor,
    operation: str,
    *,
    container: str = "",
    folder: str = "",
    blob: str = "",
    details: str = "",
) -> AuditLog:
    """Append one entry inside the caller's transaction `conn` (it commits with the change)."""
    entry = _entry(actor, operation, container, folder, blob, details)
    await _append(conn, [entry])
    _announce([entry])  # sent when the caller's transaction commits
    return entry


class _Batches:
    """Group commit for entries that are not part of a change (reads, refused attempts).

    Each entry used to take the chain lock in a transaction of its own: four round trips and a
    commit, one request behind another. An entry that arrives while nothing is being written is
    written at once (no batching window); entries that arrive while a batch is being written
    wait and go together in the next one, so batches form by themselves under load. Callers
    wait for their entry's commit, and only for that (the live `audit:created` is sent after
    they are released), so an access is never answered before it is on record, and a failure
    to write reaches every caller.
    """

    MAX = 200

    def __init__(self) -> None:
        self.waiting: list[tuple[AuditLog, asyncio.Future[None]]] = []
        self.writing: list[tuple[AuditLog, asyncio.Future[None]]] = []
        self.writer: asyncio.Task[None] | None = None

    async def add(self, entry: AuditLog) -> None:
        loop = asyncio.get_running_loop()
        done: asyncio.Future[None] = loop.create_future()
        self.waiting.append((entry, done))
        if self.writer is None or self.writer.done():
            self.writer = loop.create_task(self._write())
            self.writer.add_done_callback(self._stopped)
        await done

    async def _write(self) -> None:
        while self.waiting:
            self.writing, self.waiting = self.waiting[: self.MAX], self.waiting[self.MAX :]
            started = time.perf_counter()
            try:
                async with transaction() as conn:
                    await _append(conn, [entry for entry, _ in self.writing])
            except Exception as exc:  # noqa: BLE001 - handed to each caller to answer
                metrics.audit_batch(len(self.writing), time.perf_counter() - started, True)
                for _, done in self.writing:
                    if not done.done():
                        done.set_exception(exc)
            else:
                metrics.audit_batch(len(self.writing), time.perf_counter() - started, False)
                for _, done in self.writing:
                    if not done.done():
                        done.set_result(None)
                _announce([entry for entry, _ in self.writing])  # each sent in a task of its own
            self.writing = []

    def _stopped(self, writer: asyncio.Task[None]) -> None:
        # A writer cancelled (the server shutting down), even before it started, leaves
        # nobody waiting for ever.
        if writer.cancelled():
            for _, done in self.writing + self.waiting:
                done.cancel()
            self.writing, self.waiting = [], []


# One writer per event loop (each test runs its own loop).
_BATCHES: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Batches] = (
    weakref.WeakKeyDictionary()
)


def listing_details(q: str, page: int) -> str:
    """What the audit entry of a searched, paged listing says: the search, if any, and the page."""
    search = f"search {q!r}, " if q else ""
    return f"{search}page {page}"


async def record_alone(
    actor: Actor,
    operation: str,
    *,
    container: str = "",
    folder: str = "",
    blob: str = "",
    details: str = "",
) -> None:
    """Append one entry that is not part of a change, committed with others arriving at once."""
    if in_transaction():  # the writer would nest in the caller's transaction
        raise RuntimeError("Inside a transaction, audit with record(conn, ...)")
    entry = _entry(actor, operation, container, folder, blob, details)
    wrote()  # a read that audits is not run again on a lost connection (one entry per read)
    loop = asyncio.get_running_loop()
    batches = _BATCHES.get(loop)
    if batches is None:
        batches = _BATCHES[loop] = _Batches()
    await batches.add(entry)


async def record_refusal(
    actor: Actor,
    status: int,
    request_line: str,
    *,
    container: str = "",
    folder: str = "",
    blob: str = "",
) -> None:
    """A signed-in caller's refused request (`access_denied`): its status, method and route
    template (`request_line`, never a query string), and the container, folder and file it
    named (batched, like every read)."""
    await record_alone(
        actor,
        "access_denied",
        container=container,
        folder=folder,
        blob=blob,
        details=f"{status} {request_line}",
    )


REPEAT_SECONDS = 60.0  # record_repeated writes a repeated refusal once in this long, with a count


def _clock() -> float:
    return time.monotonic()  # the tests' to replace


@dataclass
class _Repeat:
    """A refusal written once, and how often it came again since (details: what the entry of
    the count says before it)."""

    actor: Actor
    operation: str
    details: str
    opened: float
    count: int = 0
    names: tuple[str, str, str] = ("", "", "")  # container, folder, file the count names


class _Repeats:
    """The refusals of one event loop whose repeats are being counted, by what repeats."""

    def __init__(self) -> None:
        self.open: dict[tuple[str, ...], _Repeat] = {}
        self.timer: asyncio.TimerHandle | None = None
        self.closing: set[asyncio.Task[None]] = set()

    async def close(self, key: tuple[str, ...]) -> None:
        """Write the count of a refusal's repeats, if any, and start counting afresh."""
        repeat = self.open.pop(key, None)
        if repeat is not None and repeat.count:
            suffix = f" repeated={repeat.count} within {int(REPEAT_SECONDS)}s"
            container, folder, blob = repeat.names
            await record_alone(
                repeat.actor,
                repeat.operation,
                container=container,
                folder=folder,
                blob=blob,
                details=repeat.details[: 500 - len(suffix)] + suffix,
            )

    def watch(self) -> None:
        """Close the windows that ended, when they end (one timer for all of them)."""
        if self.timer is not None or not self.open:
            return
        loop = asyncio.get_running_loop()
        self.timer = loop.call_later(REPEAT_SECONDS, self._due)

    def _due(self) -> None:
        self.timer = None
        now = _clock()
        for key, repeat in list(self.open.items()):
            if now - repeat.opened >= REPEAT_SECONDS:
                task = asyncio.get_running_loop().create_task(self.close(key))
                self.closing.add(task)
                task.add_done_callback(self.closing.discard)
        self.watch()


_REPEATS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Repeats] = (
    weakref.WeakKeyDictionary()
)


async def record_repeated(
    actor: Actor,
    operation: str,
    *,
    reason: str,
    details: str = "",
    container: str = "",
    folder: str = "",
    blob: str = "",
    counted_as: str | None = None,
    same_file: bool = False,
) -> None:
    """Audit a refusal that anyone can repeat at will (a forged or replayed request to a public
    endpoint, content a member of staff uploads): the first of a kind (the operation, the
    actor's name and address, and reason) is written at once as record_alone writes it, with
    the container, folder and file it names; its repeats in the next REPEAT_SECONDS are only
    counted, and written as one entry with their count (`repeated=N`) when that time is up (or
    the app stops), saying counted_as (default: the first's details; it names no container,
    folder or file: the repeats may name others; `same_file`: only the repeats naming the same
    ones are counted together, and the count names them too: a copy storm from one file's
    text, `file_copy`). A flood costs the log an entry a minute (each process counts its own),
    never one a request."""
    # The user's id is part of what repeats: two members of staff may share a name.
    loop = asyncio.get_running_loop()
    repeats = _REPEATS.get(loop)
    if repeats is None:
        repeats = _REPEATS[loop] = _Repeats()
    names = (container, folder, blob) if same_file else ("", "", "")
    key = (operation, str(actor.user_id), actor.name, actor.client_address, reason, *names)
    now = _clock()
    repeat = repeats.open.get(key)
    if repeat is not None and now - repeat.opened < REPEAT_SECONDS:
        repeat.count += 1
        return
    await repeats.close(key)
    counted = details if counted_as is None else counted_as
    repeats.open[key] = _Repeat(actor, operation, counted, now, names=names)
    repeats.watch()
    await record_alone(
        actor, operation, container=container, folder=folder, blob=blob, details=details
    )


async def flush() -> None:
    """Wait until the entries handed to record_alone in this event loop are written, with the
    counts record_repeated holds (the app calls it when it stops, before the database closes)."""
    repeats = _REPEATS.get(asyncio.get_running_loop())
    if repeats is not None:
        if repeats.timer is not None:
            repeats.timer.cancel()
            repeats.timer = None
        for key in list(repeats.open):
            with contextlib.suppress(Exception):
                await repeats.close(key)
        if repeats.closing:
            await asyncio.gather(*repeats.closing, return_exceptions=True)
    batches = _BATCHES.get(asyncio.get_running_loop())
    if batches is not None and batches.writer is not None and not batches.writer.done():
        with contextlib.suppress(Exception):
            await asyncio.shield(batches.writer)


def to_schema(entry: AuditLog) -> AuditEntry:
    """An entry as the API shows it."""
    return AuditEntry(
        id=entry.id,
        userId=entry.user_id,
        name=entry.name,
        role=entry.role,
        operation=entry.operation,
        containerName=entry.container_name,
        folderName=entry.folder_name,
        blobName=entry.blob_name,
        clientAddress=entry.client_address,
        details=entry.details,
        timestamp=entry.timestamp,
    )


def log_filter(query: AuditQuery) -> repository.AuditFilter:
    """The entries the audit log's filters select."""
    return repository.AuditFilter(
        operation=query.operation,
        user_id=query.userId,
        user=query.user,
        container=query.containerName,
        folder=query.folderName,
        since=query.since,
        until=query.until,
    )


async def audit_page(query: AuditQuery) -> AuditPage:
    """Entries matching the query's filters, newest first, one page from its cursor."""
    rows = await repository.entries_page(log_filter(query), query.limit + 1, before_id=query.cursor)
    more = len(rows) > query.limit
    rows = rows[: query.limit]
    return AuditPage(
        auditLogs=[to_schema(r) for r in rows], nextCursor=rows[-1].id if more else None
    )
