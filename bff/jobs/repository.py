"""Every query of the file jobs (bff/jobs/service.py); the claim's dialect branches live here."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from tortoise.backends.base.client import BaseDBAsyncClient
from tortoise.expressions import F, Q
from tortoise.functions import Count

from bff.db import dialect, fetch, transaction
from bff.files.models import StoredFile
from bff.jobs.models import DONE, FAILED, PENDING, RUNNING, FileJob

_BATCH = 500  # files per statement when recording many


@dataclass(frozen=True)
class Claimed:
    """A job this process claimed, with what its work needs to know of the file."""

    id: int
    kind: str
    claim: str
    attempts: int
    version_id: str
    file_id: int
    container: str
    folder_id: int
    folder: str
    name: str
    content_type: str
    size: int
    is_profile_image: bool


def _on(query: Any, conn: BaseDBAsyncClient | None) -> Any:
    return query.using_db(conn) if conn is not None else query


async def put(
    conn: BaseDBAsyncClient, file_id: int, kind: str, version_id: str, now: datetime
) -> None:
    """Inside transaction conn (the file's row locked or new): make the file's job of this kind
    pending for version_id, from scratch (a claim on an earlier content can no longer finish)."""
    fresh = {
        "version_id": version_id,
        "state": PENDING,
        "attempts": 0,
        "next_attempt_at": now,
        "reason": None,
        "claim": None,
        "claimed_by": None,
        "claimed_until": None,
        "updated_at": now,
    }
    if not await FileJob.filter(file_id=file_id, kind=kind).using_db(conn).update(**fresh):
        await FileJob.create(file_id=file_id, kind=kind, created_at=now, using_db=conn, **fresh)


async def drop(conn: BaseDBAsyncClient, file_id: int, kind: str) -> bool:
    """Inside transaction conn: forget the file's job of this kind; whether there was one."""
    return bool(await FileJob.filter(file_id=file_id, kind=kind).using_db(conn).delete())


# One statement: the due rows are locked as they are chosen, skipping rows another process has
# locked (it is claiming them), and re-checked once locked (a row claimed and committed by
# another process meanwhile no longer qualifies).
_PG_CLAIM = (
    "UPDATE file_jobs SET state = 'running', claim = ?, claimed_by = ?, claimed_until = ?, "
    "attempts = attempts + 1, updated_at = ? WHERE id IN (SELECT id FROM file_jobs "
    "WHERE kind = ANY(?) AND ((state = 'pending' AND next_attempt_at <= ?) "
    "OR (state = 'running' AND claimed_until < ?)) ORDER BY next_attempt_at, id LIMIT ? "
    "FOR UPDATE SKIP LOCKED) RETURNING id"
)


def _claimable(kinds: list[str], now: datetime) -> Q:
    due = Q(state=PENDING, next_attempt_at__lte=now)
    abandoned = Q(state=RUNNING, claimed_until__lt=now)  # its process died or stopped
    return Q(kind__in=kinds) & (due | abandoned)


async def claim(
    kinds: list[str], limit: int, token: str, holder: str, now: datetime, until: datetime
) -> list[int]:
    """Claim up to limit due jobs of these kinds for this process (each claimed by one process
    only, however many run): their ids, each now running under `token` until `until`.

    PostgreSQL: one UPDATE whose subquery locks the due rows `FOR UPDATE SKIP LOCKED` (rows
    another process is claiming are passed over, not waited for) and marks them. SQLite, which
    has no row locks: each row is marked by one conditional UPDATE that succeeds only while it
    is still claimable, all in one transaction holding the database's write lock."""
    if not kinds or limit <= 0:
        return []
    marks = {
        "state": RUNNING,
        "claim": token,
        "claimed_by": holder,
        "claimed_until": until,
        "attempts": F("attempts") + 1,
        "updated_at": now,
    }
    due = _claimable(kinds, now)
    if dialect() == "postgres":
        rows = await fetch(_PG_CLAIM, token, holder, until, now, list(kinds), now, now, limit)
        return [int(row["id"]) for row in rows]
    # One write transaction for the batch (one commit, not one per job): it holds the write
    # lock from its start, so the candidates read are still claimable when marked.
    claimed = []
    async with transaction() as conn:
        candidates = (
            await FileJob.filter(due).using_db(conn).order_by("next_attempt_at", "id").limit(limit)
        )
        for job in candidates:
            if await FileJob.filter(due, id=job.id).using_db(conn).update(**marks):
                claimed.append(job.id)
    return claimed


_CLAIMED = (
    "SELECT j.id, j.kind, j.claim, j.attempts, j.version_id, j.file_id, c.name AS container, "
    "f.id AS folder_id, f.name AS folder, x.name, x.content_type, x.size, x.is_profile_image "
    "FROM file_jobs j JOIN files x ON x.id = j.file_id JOIN folders f ON f.id = x.folder_id "
    "JOIN containers c ON c.id = f.container_id WHERE j.claim = ?"
)


async def claimed(token: str) -> list[Claimed]:
    """The jobs held under a claim token, with their files."""
    rows = await fetch(_CLAIMED, token)
    return [
        Claimed(
            id=int(r["id"]),
            kind=str(r["kind"]),
            claim=str(r["claim"]),
            attempts=int(r["attempts"]),
            version_id=str(r["version_id"]),
            file_id=int(r["file_id"]),
            container=str(r["container"]),
            folder_id=int(r["folder_id"]),
            folder=str(r["folder"]),
            name=str(r["name"]),
            content_type=str(r["content_type"]),
            size=int(r["size"]),
            is_profile_image=bool(r["is_profile_image"]),
        )
        for r in rows
    ]


async def held(conn: BaseDBAsyncClient, job_id: int, file_id: int, token: str) -> bool:
    """Inside transaction conn: lock the job's file and then the job (the order every change of
    a file takes: its row, then its jobs) if the job is still held under token and still for
    the file's current content (an overwrite or restore since the claim: False, the result is
    discarded)."""
    files = StoredFile.filter(id=file_id).using_db(conn)
    current = await files.select_for_update().first()
    if current is None:
        return False
    query = FileJob.filter(id=job_id, claim=token, state=RUNNING).using_db(conn)
    job = await query.select_for_update().first()
    return job is not None and job.version_id == current.version_id


async def finish(
    conn: BaseDBAsyncClient | None,
    job_id: int,
    token: str,
    state: str,
    now: datetime,
    *,
    reason: str | None = None,
    next_attempt_at: datetime | None = None,
) -> bool:
    """End a claim: the job done, failed for good, or pending again at next_attempt_at (inside
    transaction conn, or alone); False if the claim was superseded meanwhile."""
    values: dict[str, Any] = {
        "state": state,
        "reason": reason,
        "claim": None,
        "claimed_by": None,
        "claimed_until": None,
        "updated_at": now,
    }
    if next_attempt_at is not None:
        values["next_attempt_at"] = next_attempt_at
    query = FileJob.filter(id=job_id, claim=token, state=RUNNING)
    return bool(await _on(query, conn).update(**values))


async def release(token: str, now: datetime) -> int:
    """Give back the jobs still held under a claim token, uncounted (a process stopping): due
    again at once for any process."""
    query = FileJob.filter(claim=token, state=RUNNING)
    return int(
        await query.update(
            state=PENDING,
            claim=None,
            claimed_by=None,
            claimed_until=None,
            attempts=F("attempts") - 1,
            next_attempt_at=now,
            updated_at=now,
        )
    )


async def backlog() -> dict[str, int]:
    """Jobs not yet finished (pending or running), by kind."""
    rows = (
        await FileJob.filter(state__in=[PENDING, RUNNING])
        .annotate(n=Count("id"))
        .group_by("kind")
        .values("kind", "n")
    )
    return {str(r["kind"]): int(r["n"]) for r in rows}


# (state, reason) of each kind's job of a file, by kind.
JobStates = dict[str, tuple[str, str | None]]


async def states_in_folder(folder_id: int) -> dict[int, JobStates]:
    """The jobs of every file of a folder that has any, by file id."""
    rows = await FileJob.filter(file__folder_id=folder_id).values(
        "file_id", "kind", "state", "reason"
    )
    states: dict[int, JobStates] = {}
    for r in rows:
        states.setdefault(int(r["file_id"]), {})[str(r["kind"])] = (str(r["state"]), r["reason"])
    return states


async def states_of(file_id: int) -> JobStates:
    """The jobs of one file, by kind."""
    rows = await FileJob.filter(file_id=file_id).values("kind", "state", "reason")
    return {str(r["kind"]): (str(r["state"]), r["reason"]) for r in rows}


async def unfinished_among(file_ids: list[int], kinds: list[str]) -> int:
    """How many jobs of these kinds on these files are not finished yet."""
    total = 0
    for start in range(0, len(file_ids), _BATCH):
        batch = file_ids[start : start + _BATCH]
        query = FileJob.filter(file_id__in=batch, kind__in=kinds, state__in=[PENDING, RUNNING])
        total += await query.count()
    return total


async def finished_among(file_ids: list[int], kinds: list[str]) -> dict[str, int]:
    """How many jobs of these kinds on these files ended done and failed."""
    counts = {DONE: 0, FAILED: 0}
    for start in range(0, len(file_ids), _BATCH):
        batch = file_ids[start : start + _BATCH]
        rows = (
            await FileJob.filter(file_id__in=batch, kind__in=kinds, state__in=[DONE, FAILED])
            .annotate(n=Count("id"))
            .group_by("state")
            .values("state", "n")
        )
        for row in rows:
            counts[str(row["state"])] += int(row["n"])
    return counts


async def failures_among(file_ids: list[int], kinds: list[str]) -> list[dict[str, Any]]:
    """The failed jobs of these kinds on these files: container, folder, name, kind, reason."""
    found: list[dict[str, Any]] = []
    for start in range(0, len(file_ids), _BATCH):
        batch = file_ids[start : start + _BATCH]
        query = FileJob.filter(state=FAILED, kind__in=kinds, file_id__in=batch).order_by("id")
        found += await query.values(
            "kind",
            "reason",
            name="file__name",
            folder="file__folder__name",
            container="file__folder__container__name",
        )
    return found


async def files_with_job(conn: BaseDBAsyncClient, folder_id: int, kind: str) -> set[int]:
    """Inside transaction conn: the ids of a folder's files that have a job of this kind."""
    query = FileJob.filter(file__folder_id=folder_id, kind=kind).using_db(conn)
    return {int(str(i)) for i in await query.values_list("file_id", flat=True)}
