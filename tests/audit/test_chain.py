"""The audit log's hash chain: verification passes on an untouched log and finds edits."""

from __future__ import annotations

import asyncio
import logging
import os
import re
import subprocess
import sys
from datetime import UTC, datetime
from typing import Any

import pytest
from quart import Quart
from tortoise import connections
from tortoise.exceptions import OperationalError

from bff.audit.chain import verify_chain
from bff.audit.guard import unguard
from bff.audit.models import AuditLog
from bff.audit.service import GENESIS_HASH, Actor, record, record_alone
from bff.db import transaction
from bff.services import app_services
from config.settings import Settings

ACTOR = Actor(7, "Dr Test", "doctor", "10.0.0.9")
# How an insert into the log reaches the database, as Tortoise's query log shows it.
INSERT_AUDIT_ROWS = re.compile(r'\s*INSERT INTO "?audit_logs"?\W', re.IGNORECASE)


async def _write(n: int) -> list[AuditLog]:
    entries = []
    for i in range(n):
        async with transaction() as conn:
            entries.append(
                await record(
                    conn, ACTOR, "login", container="ward", folder="p-1", blob="b", details=f"n={i}"
                )
            )
    return entries


def _cli(settings: Settings, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "BFF_DATABASE_URL": settings.database_url,
        "BFF_VAR_DIR": str(settings.var_dir),
    }
    return subprocess.run(  # noqa: S603 - our own CLI
        [sys.executable, "-m", "bff", *args], env=env, capture_output=True, text=True, timeout=60
    )


async def test_entries_link_to_their_predecessor(app: object) -> None:
    entries = await _write(3)
    assert entries[0].prev_hash == GENESIS_HASH
    assert entries[1].prev_hash == entries[0].hash
    assert entries[2].prev_hash == entries[1].hash
    assert await verify_chain() == (3, None)


# Every column an entry's hash covers, and an edit of it (user_id is 7 in every entry here).
TAMPERED: dict[str, Any] = {
    "timestamp": datetime(2020, 1, 1, tzinfo=UTC),
    "user_id": 8,
    "name": "Dr Someone Else",
    "role": "admin",
    "operation": "logout",
    "container_name": "other-ward",
    "folder_name": "other-patient",
    "blob_name": "other.txt",
    "client_address": "10.9.9.9",
    "details": "n=tampered",
    "request_id": "forged-request-id",
}


def test_every_column_but_the_links_is_covered_by_the_tamper_test() -> None:
    columns = set(AuditLog._meta.db_fields) - {"id", "prev_hash", "hash"}
    assert columns == set(TAMPERED), "a new audit column must be hashed and tampered with here"


@pytest.mark.parametrize("column", sorted(TAMPERED))
async def test_verify_finds_an_edit_of_any_hashed_column(
    app: object, settings: Settings, column: str
) -> None:
    entries = await _write(4)
    await unguard(connections.get("default"))  # as an attacker who owns the database would
    await AuditLog.filter(id=entries[2].id).update(**{column: TAMPERED[column]})
    count, broken = await verify_chain()
    assert broken is not None
    assert broken.entry_id == entries[2].id
    assert broken.reason.startswith("its content does not match its hash")
    assert count == 2  # verified before the break
    result = _cli(settings, "audit", "verify")
    assert result.returncode == 1, result.stdout + result.stderr
    assert f"BROKEN at entry {entries[2].id}: its content does not match" in result.stdout


async def test_verify_finds_a_deleted_row(app: object) -> None:
    entries = await _write(4)
    await unguard(connections.get("default"))
    await AuditLog.filter(id=entries[1].id).delete()
    _, broken = await verify_chain()
    assert broken is not None
    assert broken.entry_id == entries[2].id
    assert "link" in broken.reason


async def test_cli_reports_an_intact_log(app: object, settings: Settings) -> None:
    await _write(2)
    result = _cli(settings, "audit", "verify")
    assert result.returncode == 0, result.stderr
    assert "intact: 2 entries" in result.stdout


async def test_concurrent_writers_keep_one_chain(app: object) -> None:
    async def one(i: int) -> None:
        async with transaction() as conn:
            await record(conn, ACTOR, "login", details=f"c={i}")

    await asyncio.gather(*(one(i) for i in range(20)))
    assert await verify_chain() == (20, None)


async def test_entries_on_their_own_are_committed_in_batches(
    app: object, caplog: pytest.LogCaptureFixture
) -> None:
    """Reads arriving together share one lock and one commit, and keep one intact chain."""
    with caplog.at_level(logging.DEBUG, logger="tortoise.db_client"):  # the SQL statements sent
        async with transaction() as conn:  # one entry written with a change, before the reads
            await record(conn, ACTOR, "login")
        await asyncio.gather(
            *(record_alone(ACTOR, "file_list", container="c", folder=f"p-{i}") for i in range(60))
        )
    inserts = [r for r in caplog.records if INSERT_AUDIT_ROWS.match(r.getMessage())]
    assert 2 <= len(inserts) < 10  # the one above, then a handful for 60 callers
    assert await verify_chain() == (61, None)
    rows = await AuditLog.filter(operation="file_list").order_by("id")
    assert sorted(r.folder_name for r in rows) == sorted(f"p-{i}" for i in range(60))
    assert len({r.id for r in rows}) == 60


async def test_a_batch_that_cannot_be_written_fails_every_caller(app: object) -> None:
    """Nobody is answered as if their access were on record when it is not."""
    conn = connections.get("default")
    await conn.execute_script("ALTER TABLE audit_logs RENAME TO audit_logs_away")
    try:
        results = await asyncio.gather(
            *(record_alone(ACTOR, "file_view", blob=f"b{i}") for i in range(5)),
            return_exceptions=True,
        )
    finally:
        await conn.execute_script("ALTER TABLE audit_logs_away RENAME TO audit_logs")
    assert all(isinstance(r, OperationalError) for r in results), results
    await record_alone(ACTOR, "file_view", blob="after")  # the writer carries on
    assert await AuditLog.filter(operation="file_view").count() == 1
    assert await verify_chain() == (1, None)


async def test_an_entry_on_its_own_is_refused_inside_a_transaction(app: object) -> None:
    with pytest.raises(RuntimeError, match="record"):
        async with transaction():
            await record_alone(ACTOR, "file_list")


async def test_callers_are_not_left_waiting_when_the_writer_is_cancelled(app: object) -> None:
    before = asyncio.all_tasks()
    calls = [asyncio.ensure_future(record_alone(ACTOR, "file_list")) for _ in range(3)]
    await asyncio.sleep(0)  # queued, and a writer created
    (writer,) = asyncio.all_tasks() - before - set(calls)  # the one task the callers started
    writer.cancel()
    results = await asyncio.wait_for(asyncio.gather(*calls, return_exceptions=True), 5)
    assert all(isinstance(r, asyncio.CancelledError) for r in results), results
    await record_alone(ACTOR, "file_list")  # the next caller starts a new writer
    assert await verify_chain() == (1, None)


async def test_callers_are_released_at_their_commit_before_admins_are_told(
    app: Quart, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The live `audit:created` of a batched entry is sent after its caller is answered: a slow
    delivery never holds a view."""
    live = app_services(app).live
    gate, delivered, sent = asyncio.Event(), asyncio.Event(), []

    async def slow_send(event: str, payload: dict[str, Any], rooms: list[str]) -> None:
        await gate.wait()
        sent.append((event, payload, rooms))
        delivered.set()

    monkeypatch.setattr(live, "send", slow_send)
    async with app.app_context():  # as in a request
        await asyncio.wait_for(record_alone(ACTOR, "file_view", blob="b"), 10)
    assert await AuditLog.filter(operation="file_view").count() == 1  # committed
    assert sent == []
    gate.set()
    await delivered.wait()  # the announcement's own task, whenever it runs (no deadline)
    ((event, payload, rooms),) = sent
    assert (event, payload["operation"], rooms) == ("audit:created", "file_view", ["admins"])
