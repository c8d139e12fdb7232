"""The backup and restore drill: a deployment with the demo and some history is backed up while
a nurse keeps uploading, then restored into a fresh database and storage - the same kind and the
other kind (SQLite <-> PostgreSQL, local disk -> S3) - and every table, object and audit entry
is compared. Restores run `python -m bff restore` in a process of its own (its own ORM set-up).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import os
import secrets
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from aiobotocore.session import AioSession

from bff.audit.head import HEAD as AUDIT_HEAD
from bff.backup import database as db
from bff.backup.service import backup
from bff.demo import load_demo
from storage import open_storage
from storage.base import ObjectKey, Storage
from tests.conftest import REGION
from tests.files.conftest import Ward
from tools.devserver import REPO, throwaway_postgres

# Tables the uploading nurse changes while the backup runs: compared as "the restored rows are
# the source's as of the snapshot" below; every other table must come back identical.
GROWING = {"audit_logs", "files", "file_jobs"}  # file_jobs: one per upload (no job runs here)
# The running processes' own state (uploads in flight, job leases, sign-in sessions touched by
# each request): restored as they were, but the source has moved on since.
TRANSIENT = {"pending_uploads", "leases", "sessions"}


def run_bff(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """`python -m bff ARGS` with env; its output."""
    return run_module(env, "bff", *args)


def run_module(env: dict[str, str], module: str, *args: str) -> subprocess.CompletedProcess[str]:
    """`python -m MODULE ARGS` with env, from the repository; its output."""
    return subprocess.run(  # noqa: S603 - our own interpreter, fixed arguments
        [sys.executable, "-m", module, *args],
        env=env,
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def bff_env(database_url: str, storage_url: str, var_dir: Path) -> dict[str, str]:
    """Settings of a deployment for a child process."""
    return {
        **os.environ,
        "BFF_DATABASE_URL": database_url,
        "BFF_STORAGE_URL": storage_url,
        "BFF_VAR_DIR": str(var_dir),
        "BFF_REDIS_URL": "",
    }


async def table_rows(database_url: str, scratch: Path) -> dict[str, set[tuple[Any, ...]]]:
    """Every row of every table (from the catalog), values in one canonical form."""
    rows: dict[str, set[tuple[Any, ...]]] = {}
    async with db.consistent_snapshot(database_url, scratch) as source:
        for table in await source.tables():
            families = [family for _, family in table.columns]
            rows[table.name] = {
                tuple(
                    db.decode(db.encode(v), f, "postgres")
                    for v, f in zip(row, families, strict=True)
                )
                async for batch in source.rows(table)
                for row in batch
            }
    return rows


async def objects(storage: Storage) -> dict[str, str]:
    """Every stored object's key -> SHA-256 of its bytes."""
    found = {}
    async for info in storage.walk():
        sha = hashlib.sha256()
        async with await storage.open_object(ObjectKey.parse(info.name)) as stream:
            async for chunk in stream:
                sha.update(chunk)
        found[info.name] = sha.hexdigest()
    return found


@contextlib.asynccontextmanager
async def s3_bucket(session: AioSession, endpoint: str) -> AsyncIterator[str]:
    """A new bucket on moto's server; its storage URL (prefix 'restored')."""
    bucket = "restore-" + secrets.token_hex(6)
    async with session.create_client("s3", endpoint_url=endpoint, region_name=REGION) as s3:
        await s3.create_bucket(Bucket=bucket)
    yield f"s3://{bucket}/restored?endpoint_url={endpoint}&region={REGION}"


async def _history(ward: Ward) -> None:
    """The demo, plus an upload, an overwrite and an admin's delete through the API."""
    await load_demo(ward.settings, ward.storage)
    assert (await ward.upload(ward.nurse, "notes.txt", b"first")).status_code == 201
    replaced = await ward.upload(ward.nurse, "notes.txt", b"second", overwrite="true")
    assert replaced.status_code in (200, 201), await replaced.get_data()
    assert (await ward.upload(ward.nurse, "gone.txt", b"to be deleted")).status_code == 201
    deleted = await ward.client.delete(ward.url("gone.txt"), headers=ward.admin.headers)
    assert deleted.status_code in (200, 204), await deleted.get_data()


async def _backup_while_uploading(ward: Ward, location: str) -> list[str]:
    """Back up while the nurse uploads one file after another; the names uploaded."""
    uploaded: list[str] = []
    done = asyncio.Event()

    async def keep_uploading() -> None:
        n = 0
        while not done.is_set() and n < 400:  # bounded
            name = f"during-{n:03d}.txt"
            response = await ward.upload(ward.nurse, name, f"upload {n}\n".encode() * 50)
            assert response.status_code == 201, await response.get_data()
            uploaded.append(name)
            n += 1

    uploader = asyncio.create_task(keep_uploading())
    await asyncio.sleep(0.2)  # some uploads before the backup starts
    try:
        await backup(ward.settings, location)
    finally:
        done.set()
        await uploader
    return uploaded


def _compare_tables(
    source: dict[str, set[tuple[Any, ...]]],
    restored: dict[str, set[tuple[Any, ...]]],
    during: list[str],
) -> int:
    """Assert the restored tables are the source's as of the snapshot; the uploads restored."""
    assert set(restored) == set(source)
    for name in set(source) - GROWING - TRANSIENT:
        assert restored[name] == source[name], name
    # The audit log: the restored one is the source's first entries, unchanged.
    assert restored["audit_logs"] <= source["audit_logs"]
    newest = max(row[0] for row in restored["audit_logs"])
    assert restored["audit_logs"] == {r for r in source["audit_logs"] if r[0] <= newest}
    # Files: those of the snapshot; of the nurse's uploads during the backup, the first k.
    assert restored["files"] <= source["files"]
    assert restored["file_jobs"] <= source["file_jobs"]
    names = {row[1] for row in restored["files"]}
    kept = [name for name in during if name in names]
    assert kept == during[: len(kept)]
    return len(kept)


@pytest.fixture
async def backed_up(ward: Ward, tmp_path: Path) -> tuple[Ward, Path, list[str]]:
    """A ward with history, backed up to tmp_path/snapshot while uploads kept coming."""
    await _history(ward)
    snapshot = tmp_path / "snapshot"
    during = await _backup_while_uploading(ward, str(snapshot))
    return ward, snapshot, during


async def _check_restored(
    ward: Ward, env: dict[str, str], during: list[str], tmp_path: Path
) -> None:
    source_rows = await table_rows(ward.settings.database_url, tmp_path)
    restored_rows = await table_rows(env["BFF_DATABASE_URL"], tmp_path)
    kept = _compare_tables(source_rows, restored_rows, during)
    async with open_storage(env["BFF_STORAGE_URL"]) as restored_storage:
        restored_objects = await objects(restored_storage)
    source_objects = await objects(ward.storage)
    # The audit log's signed head moves on with the source's log: the restored one is the
    # snapshot's, checked against the restored log by `audit verify` below.
    assert AUDIT_HEAD in restored_objects
    del restored_objects[AUDIT_HEAD], source_objects[AUDIT_HEAD]
    assert restored_objects.items() <= source_objects.items()
    missing = {key.rsplit("/", 1)[-1] for key in source_objects.keys() - restored_objects.keys()}
    assert missing == set(during[kept:])  # only what was uploaded after the snapshot
    assert f"{ward.container.name}/{ward.folder.name}/notes.txt" in restored_objects
    verify = run_bff(env, "audit", "verify")
    assert verify.returncode == 0, verify.stdout + verify.stderr
    assert "Audit log intact" in verify.stdout


async def test_drill_same_database_local_disk(
    backed_up: tuple[Ward, Path, list[str]], tmp_path: Path, run_dir: Path
) -> None:
    ward, snapshot, during = backed_up
    assert during, "the nurse uploaded nothing during the backup"
    url = f"sqlite://{tmp_path}/restored.sqlite3"
    async with contextlib.AsyncExitStack() as stack:
        if ward.settings.database_url.startswith("postgres"):
            url = await stack.enter_async_context(throwaway_postgres("bff_restore"))
        env = bff_env(url, f"file://{tmp_path}/restored-storage", run_dir)
        restored = run_bff(env, "restore", str(snapshot))
        assert restored.returncode == 0, restored.stdout + restored.stderr
        assert "Restore verified" in restored.stdout
        await _check_restored(ward, env, during, tmp_path)
        # A second restore into the now filled target is refused, unless --force.
        again = run_bff(env, "restore", str(snapshot))
        assert again.returncode == 1
        assert "is not empty" in again.stderr
        forced = run_bff(env, "restore", "--force", str(snapshot))
        assert forced.returncode == 0, forced.stdout + forced.stderr
        assert "Restore verified" in forced.stdout


async def test_drill_other_database_and_s3(
    backed_up: tuple[Ward, Path, list[str]],
    tmp_path: Path,
    run_dir: Path,
    s3_endpoint: str,
    s3_session: AioSession,
) -> None:
    """SQLite -> PostgreSQL (or PostgreSQL -> SQLite) and local disk -> S3: the migration path."""
    ward, snapshot, during = backed_up
    async with contextlib.AsyncExitStack() as stack:
        if ward.settings.database_url.startswith("postgres"):
            url = f"sqlite://{tmp_path}/restored.sqlite3"
        else:
            url = await stack.enter_async_context(throwaway_postgres("bff_restore"))
        storage_url = await stack.enter_async_context(s3_bucket(s3_session, s3_endpoint))
        env = bff_env(url, storage_url, run_dir)
        restored = run_bff(env, "restore", str(snapshot))
        assert restored.returncode == 0, restored.stdout + restored.stderr
        await _check_restored(ward, env, during, tmp_path)
        # The sequences go on after the restored ids (and after the source's, deleted rows too).
        async with db.consistent_snapshot(url, tmp_path) as restored_db:
            tables = await restored_db.tables()
            issued = await restored_db.sequences(tables)
            for table in tables:
                if table.serial is not None:
                    ids = [0] + [row[0] async for batch in restored_db.rows(table) for row in batch]
                    assert issued.get(table.name, 0) >= max(ids), table.name
            assert issued["audit_logs"] >= 1
