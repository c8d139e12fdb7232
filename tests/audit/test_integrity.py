"""Tampering with the audit log, as someone with full database access would (triggers dropped
first): `audit verify` exits 1 naming the first broken entry; an untouched log verifies.
Also: the triggers, the checkpoint job (one at a time, the alert), and the migration of an
unkeyed chain."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from quart import Quart
from tortoise import connections

from bff.audit import head as head_module
from bff.audit import integrity
from bff.audit.chain import verify_chain
from bff.audit.guard import unguard
from bff.audit.head import HEAD, HEAD_LEASE, Head, read_head, write_head
from bff.audit.models import AuditLog
from bff.audit.service import GENESIS_HASH, Actor, legacy_entry_hash, record_alone
from bff.audit.signed import read_alert
from bff.leases import take_lease
from bff.services import app_services
from storage.base import Storage
from tests.conftest import make_settings, started_app
from tools.devserver import REPO, local_env

ACTOR = Actor(7, "Nurse Nora", "nurse", "10.0.0.9")


@dataclass
class Ledger:
    """An app with its own storage and a log of `n` entries, signed by the app's head writer."""

    app: Quart
    storage: Storage
    env: dict[str, str]
    ids: list[int]

    def verify(self) -> subprocess.CompletedProcess[str]:
        return _cli(self.env, "audit", "verify")

    async def checkpoint(self) -> integrity.CheckpointResult:
        return await integrity.write_checkpoint(self.storage)

    async def settled(self) -> None:
        """Once the app's head writer has signed every entry written so far (or found the log
        broken): it signs at moments of its own, later on a loaded machine, so a test that
        reads the head or changes the log waits for it, never for a time."""
        await app_services(self.app).audit_head.settled()

    async def signed_head(self) -> Head:
        """The head the app signed once settled."""
        await self.settled()
        head, altered = await read_head(self.storage)
        assert head is not None and not altered
        return head


def _cli(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(  # noqa: S603 - our own CLI
        [sys.executable, "-m", "bff", *args],
        env=env,
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )


async def _write(n: int) -> list[int]:
    """Write n entries, as the running app's requests do; the ids of the whole log."""
    app = _APP.get()
    async with app.app_context() if app is not None else contextlib.nullcontext():
        for i in range(n):
            await record_alone(ACTOR, "file_view", container="ward", folder="p-1", blob=f"f{i}.pdf")
    return [e.id for e in await AuditLog.all().order_by("id")]


_APP: ContextVar[Quart | None] = ContextVar("ledger_app", default=None)


@pytest.fixture
async def ledger(database_url: str, run_dir: Path, tmp_path: Path) -> AsyncIterator[Ledger]:
    storage_url = f"file://{tmp_path}/storage"
    settings = make_settings(database_url, run_dir, storage_url=storage_url)
    env = {
        **os.environ,
        "BFF_DATABASE_URL": database_url,
        "BFF_STORAGE_URL": storage_url,
        "BFF_VAR_DIR": str(run_dir),
        "BFF_REDIS_URL": "",
    }
    async with started_app(settings) as app:
        token = _APP.set(app)
        try:
            ids = await _write(10)
            ledger = Ledger(app, app_services(app).storage, env, ids)
            await ledger.settled()  # the head at the newest entry: nothing left to sign
            yield ledger
        finally:
            _APP.reset(token)


async def _sql(statement: str, *params: object) -> None:
    await connections.get("default").execute_query(statement, list(params))


def _param(n: int) -> str:
    return f"${n}" if connections.get("default").capabilities.dialect == "postgres" else "?"


async def _attacker() -> None:
    """What someone who owns the database does first."""
    await unguard(connections.get("default"))


def _broken_at(result: subprocess.CompletedProcess[str], entry_id: int) -> str:
    assert result.returncode == 1, result.stdout + result.stderr
    assert result.stdout.startswith(f"Audit log BROKEN at entry {entry_id}:"), result.stdout
    return result.stdout


async def test_an_untouched_log_verifies_with_its_checkpoints(ledger: Ledger) -> None:
    assert (await ledger.checkpoint()).written is not None
    await _write(2)
    result = ledger.verify()
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Audit log intact: 12 entries verified." in result.stdout
    assert f"the latest at entry {ledger.ids[-1]}" in result.stdout
    assert "2 entries after it are checked by the chain alone" in result.stdout


async def test_deleting_the_newest_entries_before_a_checkpoint_is_found(ledger: Ledger) -> None:
    await ledger.checkpoint()
    await _attacker()
    await AuditLog.filter(id__gte=ledger.ids[7]).delete()
    assert (await verify_chain())[1] is None  # the chain alone cannot see it
    assert "missing" in _broken_at(ledger.verify(), ledger.ids[7])


async def test_deleting_an_entry_in_the_middle_is_found(ledger: Ledger) -> None:
    await ledger.checkpoint()
    # Had the head been signed at the entry deleted, the head would report it "missing" first
    # (CI saw it once on PostgreSQL); here the chain must find the gap.
    assert (await ledger.signed_head()).last_id == ledger.ids[-1]
    await _attacker()
    await AuditLog.filter(id=ledger.ids[4]).delete()
    assert "does not link" in _broken_at(ledger.verify(), ledger.ids[5])


async def test_an_edit_with_hashes_recomputed_without_the_key_is_found(ledger: Ledger) -> None:
    """Entry 3 becomes a system file_list, and every hash from it on is recomputed with the
    unkeyed formula the attacker can run."""
    await ledger.checkpoint()
    await _attacker()
    rows = await AuditLog.all().order_by("id")
    prev = rows[2].prev_hash
    for row in rows[2:]:
        if row.id == ledger.ids[2]:
            row.operation, row.user_id, row.name, row.role = "file_list", None, "system", ""
        row.prev_hash = prev
        row.hash = prev = legacy_entry_hash(prev, row)
        await row.save()
    _broken_at(ledger.verify(), ledger.ids[2])


async def test_moving_the_unkeyed_boundary_is_found_by_the_checkpoint(ledger: Ledger) -> None:
    """Declaring every entry unkeyed and recomputing them all fools the chain, not the
    checkpoint."""
    await ledger.checkpoint()
    await _attacker()
    rows = await AuditLog.all().order_by("id")
    prev = GENESIS_HASH
    for row in rows:
        row.details = "rewritten" if row.id == ledger.ids[3] else row.details
        row.prev_hash = prev
        row.hash = prev = legacy_entry_hash(prev, row)
        await row.save()
    await _sql(f"UPDATE audit_legacy SET last_id = {_param(1)}", ledger.ids[-1])
    assert (await verify_chain())[1] is None
    assert "boundary" in _broken_at(ledger.verify(), 1)


async def test_a_forged_entry_is_found(ledger: Ledger) -> None:
    await ledger.checkpoint()
    await _attacker()
    victim = await AuditLog.get(id=ledger.ids[6])
    await victim.delete()
    forged = AuditLog(
        id=victim.id,
        timestamp=victim.timestamp,
        user_id=None,
        name="system",
        role="",
        operation="file_list",
        container_name="ward",
        folder_name="p-1",
        blob_name="",
        client_address="",
        details="",
        prev_hash=victim.prev_hash,
    )
    forged.hash = hashlib.sha256(b"a guess at the formula").hexdigest()
    await forged.save(force_create=True)
    _broken_at(ledger.verify(), ledger.ids[6])


async def test_an_edited_checkpoint_is_found(ledger: Ledger, tmp_path: Path) -> None:
    written = (await ledger.checkpoint()).written
    assert written is not None
    path = tmp_path / "storage" / integrity.checkpoint_key(written.last_id)
    document = json.loads(path.read_text())
    document["body"]["count"] = 9
    path.write_text(json.dumps(document))
    assert "altered" in _broken_at(ledger.verify(), written.last_id)


@pytest.mark.parametrize(
    "statement", ["UPDATE audit_logs SET details = 'x'", "DELETE FROM audit_logs"]
)
async def test_the_database_refuses_to_change_the_log(app: Quart, statement: str) -> None:
    await _write(1)
    with pytest.raises(Exception, match="append-only"):
        await _sql(statement)
    with pytest.raises(Exception, match="append-only"):
        legacy = statement.replace("audit_logs", "audit_legacy")
        await _sql(legacy.replace("details = 'x'", "last_id = 5"))
    assert await AuditLog.all().count() == 1


async def test_postgres_refuses_truncate_too(app: Quart) -> None:
    if connections.get("default").capabilities.dialect != "postgres":
        pytest.skip("TRUNCATE is PostgreSQL's")
    with pytest.raises(Exception, match="append-only"):
        await _sql("TRUNCATE audit_logs")


async def test_checkpoints_follow_new_entries_one_process_at_a_time(ledger: Ledger) -> None:
    first = (await ledger.checkpoint()).written
    assert first is not None and (first.last_id, first.count) == (ledger.ids[-1], 10)
    assert (await ledger.checkpoint()).unchanged == first  # nothing new
    ids = await _write(3)
    now = datetime.now(UTC)
    await take_lease(integrity.CHECKPOINT_LEASE, "other:1", now, now + timedelta(minutes=1))
    assert (await ledger.checkpoint()).busy
    await take_lease(integrity.CHECKPOINT_LEASE, "other:1", now, now - timedelta(seconds=1))
    second = (await ledger.checkpoint()).written
    assert second is not None and (second.last_id, second.count) == (ids[-1], 13)
    latest, altered = await integrity.latest_checkpoint(ledger.storage)
    assert (latest, altered) == (second, False)
    assert await read_alert(ledger.storage) is None


async def test_the_periodic_verification_raises_an_alert(ledger: Ledger) -> None:
    await ledger.checkpoint()
    ids = (await _write(3))[-3:]
    await _attacker()
    await AuditLog.filter(id=ids[1]).update(details="edited")
    result = await ledger.checkpoint()
    assert result.broken is not None and result.broken.entry_id == ids[1]
    alert = await read_alert(ledger.storage)
    assert alert is not None and alert.entry_id == ids[1]
    latest, _ = await integrity.latest_checkpoint(ledger.storage)
    assert latest is not None and latest.last_id == ledger.ids[-1]  # not moved past the break


async def test_deleting_the_newest_entries_after_the_checkpoint_is_found(ledger: Ledger) -> None:
    """The attack: with the triggers dropped, delete the newest entries, written after the
    latest checkpoint. The chain alone cannot see it (before the signed head, `audit verify`
    answered "intact" until the next checkpoint); the head the server signed a moment after
    the commit names the last of them."""
    await ledger.checkpoint()
    ids = (await _write(5))[-5:]
    head = await ledger.signed_head()
    assert head.last_id == ids[-1]
    await _attacker()
    await AuditLog.filter(id__gte=ids[2]).delete()
    assert (await verify_chain())[1] is None  # the chain alone cannot see it
    out = _broken_at(ledger.verify(), ids[2])
    when = f"{head.time:%Y-%m-%d %H:%M:%S} UTC"
    assert f"the signed head of {when} recorded entries up to {ids[-1]}" in out
    assert f"the log holds none after entry {ids[1]} up to it (deleted)" in out
    # The running server finds it too, at its next entry, and does not sign past the gap.
    await _write(1)
    await ledger.settled()
    alert = await read_alert(ledger.storage)
    assert alert is not None and alert.entry_id == ids[2], alert
    assert (await read_head(ledger.storage))[0] == head
    assert (await ledger.checkpoint()).broken is not None  # nor checkpoint over it


async def test_the_head_moves_only_forward_one_process_at_a_time(ledger: Ledger) -> None:
    """Heads are written under a lease by whoever reads the newest entry inside it: another
    process holding it makes this one wait, and a head is never replaced by an older one."""
    head = await ledger.signed_head()
    assert head.last_id == ledger.ids[-1]
    assert (await write_head(ledger.storage)).written is None  # nothing newer
    now = datetime.now(UTC)
    assert await take_lease(HEAD_LEASE, "elsewhere:1", now, now + timedelta(hours=1))
    ids = (await _write(1))[-1:]
    assert (await write_head(ledger.storage)).busy
    await _sql(f"DELETE FROM leases WHERE name = {_param(1)}", HEAD_LEASE)
    newer = await ledger.signed_head()  # the writer tried again by itself
    assert newer.last_id == ids[0] > head.last_id


async def test_a_paused_head_writer_signs_nothing_until_the_pause_ends(
    ledger: Ledger, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The seam tests use to know which heads exist (tests/backup/test_snapshot.py): inside
    `paused()` the app's writer signs nothing, and what came due is signed after it."""
    monkeypatch.setattr(head_module, "HEAD_SECONDS", 0.0)  # the writer goes at once when told
    head = await ledger.signed_head()
    writer = app_services(ledger.app).audit_head
    async with writer.paused():
        ids = (await _write(2))[-2:]
        for _ in range(20):
            await asyncio.sleep(0)  # turns of the loop: the writer's task waits for the pause
            await AuditLog.all().count()  # and the database's (what a head write needs)
        assert (await read_head(ledger.storage))[0] == head
    assert (await ledger.signed_head()).last_id == ids[-1]


async def test_an_edited_head_is_found(ledger: Ledger, tmp_path: Path) -> None:
    assert (await ledger.signed_head()).last_id == ledger.ids[-1]
    path = tmp_path / "storage" / HEAD
    document = json.loads(path.read_text())
    document["body"]["lastId"] = ledger.ids[3]  # "the log ended earlier": forged
    path.write_text(json.dumps(document))
    assert "head.json was altered" in _broken_at(ledger.verify(), 0)


def test_an_unkeyed_chain_migrates_and_both_parts_verify(tmp_path: Path) -> None:
    """Entries written before the key existed keep their SHA-256; the first keyed entry links
    to the last of them; `audit verify` checks both, and an edit of an old entry is found."""
    env = local_env(tmp_path)
    script = f"""
import asyncio, json
from datetime import UTC, datetime
from tortoise import Tortoise, connections
from tortoise.migrations.api.migrate import migrate
from bff.audit.models import AuditLog
from bff.audit.service import GENESIS_HASH, legacy_entry_hash
from bff.db import tortoise_config

async def main():
    config = tortoise_config("sqlite://{tmp_path}/bff.sqlite3")
    await migrate(config=config, target="bff.0005_pending_uploads")
    await Tortoise.close_connections()
    await Tortoise.init(config=config)
    try:
        prev = GENESIS_HASH
        for i in range(3):
            entry = AuditLog(timestamp=datetime.now(UTC), operation="login", name=f"old {{i}}",
                             prev_hash=prev)
            entry.hash = prev = legacy_entry_hash(prev, entry)
            # Columns of schema 0005 only: the model has gained some since.
            await connections.get("default").execute_query(
                "INSERT INTO audit_logs (timestamp, user_id, name, role, operation,"
                " container_name, folder_name, blob_name, client_address, details, prev_hash,"
                " hash) VALUES (?, NULL, ?, '', 'login', '', '', '', '', '', ?, ?)",
                [entry.timestamp.isoformat(), entry.name, entry.prev_hash, entry.hash],
            )
    finally:
        await Tortoise.close_connections()

asyncio.run(main())
"""
    made = subprocess.run(  # noqa: S603 - our own code
        [sys.executable, "-c", script], env=env, cwd=REPO, capture_output=True, text=True,
        timeout=120,
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    created = _cli(env, "users", "create", "--username", "ann", "--name", "Ann", "--role",
                   "nurse", "--password", "first-password")  # fmt: skip
    assert created.returncode == 0, created.stderr
    assert _cli(env, "audit", "checkpoint").returncode == 0
    verified = _cli(env, "audit", "verify")
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert verified.stdout.startswith("Audit log intact: 4 entries verified."), verified.stdout
    import sqlite3

    with sqlite3.connect(tmp_path / "bff.sqlite3") as db:
        assert db.execute("SELECT last_id FROM audit_legacy").fetchone() == (3,)
        keyed = db.execute("SELECT prev_hash FROM audit_logs WHERE id = 4").fetchone()
        assert keyed == db.execute("SELECT hash FROM audit_logs WHERE id = 3").fetchone()
        for trigger in ("audit_logs_no_update", "audit_logs_no_delete"):
            db.execute(f"DROP TRIGGER {trigger}")  # the attacker
        db.execute("UPDATE audit_logs SET name = 'someone else' WHERE id = 2")
    _broken_at(_cli(env, "audit", "verify"), 2)
