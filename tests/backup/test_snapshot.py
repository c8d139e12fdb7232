"""Snapshots a restore must refuse (a backup killed part-way, a tampered part or manifest), and
snapshots kept in an S3 bucket prefix."""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import signal
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pyrage
import pytest
from aiobotocore.session import AioSession

from bff.audit import head
from bff.backup import database as db
from bff.backup.service import backup
from bff.backup.snapshot import SnapshotError
from bff.services import app_services
from storage.base import ObjectKey, Storage
from tests.backup import sealed
from tests.backup.test_drill import bff_env, run_bff, s3_bucket
from tests.conftest import REGION
from tests.files.conftest import Ward
from tools.devserver import REPO


async def _bulk(storage: Storage, count: int, size: int) -> None:
    """count objects of size bytes, so that a backup takes a moment."""
    block = secrets.token_bytes(size)

    async def chunks() -> object:
        yield block

    for n in range(count):
        await storage.write_object(ObjectKey.parse(f".bff-test/bulk-{n:04d}"), chunks())  # type: ignore[arg-type]


def _fresh_target(tmp_path: Path, run_dir: Path, name: str) -> dict[str, str]:
    return bff_env(
        f"sqlite://{tmp_path}/{name}.sqlite3", f"file://{tmp_path}/{name}-storage", run_dir
    )


def _backup_killed(env: dict[str, str], snapshot: Path, kill_after: str) -> None:
    """Run `python -m bff backup` and SIGKILL it when it prints a line starting kill_after."""
    process = subprocess.Popen(  # noqa: S603 - our own interpreter, fixed arguments
        [sys.executable, "-m", "bff", "backup", str(snapshot)],
        env=env,
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stderr is not None
    for line in process.stderr:
        if line.startswith(kill_after):
            os.kill(process.pid, signal.SIGKILL)
            break
    process.wait(timeout=60)
    assert process.returncode == -signal.SIGKILL


def _refused_everywhere(tmp_path: Path, run_dir: Path, snapshot: Path) -> None:
    """No snapshot at its name; the hidden leftover, and the name, both refused by restore,
    which touches neither the target database nor the target storage."""
    assert not snapshot.exists()
    partial = [p for p in tmp_path.iterdir() if p.name.startswith(".snapshot.partial-")]
    assert len(partial) == 1  # what the killed backup left, under a hidden name
    target = _fresh_target(tmp_path, run_dir, "target")
    for location in (snapshot, partial[0]):
        refused = run_bff(target, "restore", str(location))
        assert refused.returncode == 1, refused.stdout
        assert "Restore failed" in refused.stderr
    assert not Path(target["BFF_DATABASE_URL"].removeprefix("sqlite://")).exists()
    assert not Path(target["BFF_STORAGE_URL"].removeprefix("file://")).exists()


@pytest.mark.parametrize("kill_after", ["Copying stored objects", "Reconciling"])
async def test_sigkill_during_backup_leaves_no_snapshot_restore_accepts(
    ward: Ward, tmp_path: Path, run_dir: Path, kill_after: str
) -> None:
    await _bulk(ward.storage, 120, 128 * 1024)
    snapshot = tmp_path / "snapshot"
    env = bff_env(ward.settings.database_url, ward.settings.storage_url, run_dir)
    _backup_killed(env, snapshot, kill_after)
    _refused_everywhere(tmp_path, run_dir, snapshot)


def _tamper_manifest(manifest: Path) -> None:
    sealed = json.loads(manifest.read_text())
    sealed["manifest"]["database"]["tables"]["users"] += 1
    manifest.write_text(json.dumps(sealed))


async def test_tampered_snapshot_is_refused(ward: Ward, tmp_path: Path, run_dir: Path) -> None:
    """An object replaced by other bytes encrypted to the (public) recipient fails the restore;
    an undecryptable one too; an edited manifest is refused."""
    for name in ("notes.txt", "scan.txt"):
        assert (await ward.upload(ward.nurse, name, b"the original")).status_code == 201
    snapshot = tmp_path / "snapshot"
    await backup(ward.settings, str(snapshot))
    key = sealed.identity(ward.settings)
    folder = f"{ward.container.name}/{ward.folder.name}"
    stored = snapshot / sealed.stored_name(snapshot, key, f"{folder}/notes.txt")
    stored.write_bytes(pyrage.encrypt(b"the tampered", [sealed.recipient(snapshot)]))
    cut = snapshot / sealed.stored_name(snapshot, key, f"{folder}/scan.txt")
    cut.write_bytes(cut.read_bytes()[:-8])
    restored = run_bff(_fresh_target(tmp_path, run_dir, "one"), "restore", str(snapshot))
    assert restored.returncode == 1
    assert f"does not match its checksum in the snapshot: {folder}/notes.txt" in restored.stdout
    assert f"object does not decrypt (changed in the snapshot): {folder}/scan.txt" in (
        restored.stdout
    )
    target = Path(tmp_path / "one-storage" / folder)  # neither changed object landed
    assert not (target / "notes.txt").exists()
    assert not (target / "scan.txt").exists()

    _tamper_manifest(snapshot / "manifest.json")
    refused = run_bff(_fresh_target(tmp_path, run_dir, "two"), "restore", str(snapshot))
    assert refused.returncode == 1
    assert "The manifest is not authentic: it was changed after the backup" in refused.stderr


@pytest.mark.parametrize("storage_app", ["s3"], indirect=True)
async def test_snapshot_in_a_bucket_prefix(
    any_ward: Ward, tmp_path: Path, run_dir: Path, s3_endpoint: str, s3_session: AioSession
) -> None:
    """From S3 storage to another bucket's prefix, and back onto local disk."""
    ward = any_ward
    assert (await ward.upload(ward.nurse, "scan.txt", b"kept in a bucket")).status_code == 201
    async with s3_bucket(s3_session, s3_endpoint) as url:
        location = url.replace("/restored?", "/snapshots/monday?")
        await backup(ward.settings, location)
        with pytest.raises(SnapshotError, match="not empty"):  # never over a snapshot
            await backup(ward.settings, location)
        target = _fresh_target(tmp_path, run_dir, "local")
        restored = run_bff(target, "restore", location)
        assert restored.returncode == 0, restored.stdout + restored.stderr
    copy = Path(target["BFF_STORAGE_URL"].removeprefix("file://"))
    restored_file = copy / ward.container.name / ward.folder.name / "scan.txt"
    assert restored_file.read_bytes() == b"kept in a bucket"
    assert REGION in location


async def test_changes_between_the_copy_and_the_database_instant_are_reconciled(
    ward: Ward, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An upload, a replacement and a delete after the objects were copied but before the
    database is read: the snapshot holds the files as the index lists them at that instant."""
    for name, data in (("stays.txt", b"kept"), ("deleted.txt", b"gone"), ("replaced.txt", b"1")):
        assert (await ward.upload(ward.nurse, name, data)).status_code == 201
    read_database = db.consistent_snapshot

    @contextlib.asynccontextmanager
    async def after_changes(url: str, scratch: Path) -> AsyncIterator[db.SourceSnapshot]:
        assert (await ward.upload(ward.nurse, "late.txt", b"arrived late")).status_code == 201
        replaced = await ward.upload(ward.nurse, "replaced.txt", b"longer now", overwrite="true")
        assert replaced.status_code in (200, 201)
        deleted = await ward.client.delete(ward.url("deleted.txt"), headers=ward.admin.headers)
        assert deleted.status_code in (200, 204)
        async with read_database(url, scratch) as source:
            yield source

    monkeypatch.setattr(db, "consistent_snapshot", after_changes)
    snapshot = tmp_path / "snapshot"
    await backup(ward.settings, str(snapshot))
    prefix = f"{ward.container.name}/{ward.folder.name}/"
    held = sealed.objects(snapshot, sealed.identity(ward.settings))
    assert {
        k.removeprefix(prefix): v
        for k, v in held.items()
        if k.startswith(prefix) and "/" not in k.removeprefix(prefix)
    } == {
        "stays.txt": b"kept",
        "late.txt": b"arrived late",
        "replaced.txt": b"longer now",
    }


async def test_audit_head_written_after_the_database_instant_stays_out_of_the_snapshot(
    ward: Ward, tmp_path: Path, run_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The server signs the audit log's newest entry into .bff-audit/head.json within a second
    of every commit. One written after the database was read names entries the snapshot does
    not hold: copied, it made the restore report them deleted. It stays out; the restore
    verifies, and the restored log ends where the snapshot's manifest says.

    The app's own head writer is paused throughout, so the only head is the one written here
    after the database instant (left running, it signed the first upload at a moment of its
    own: after the deletion below, so the snapshot held that head, or just before this test's
    write, which then found nothing newer to sign)."""
    async with app_services(ward.app).audit_head.paused():
        assert (await ward.upload(ward.nurse, "before.txt", b"before")).status_code == 201
        await ward.storage.delete_object(ObjectKey.parse(head.HEAD))
        read_database = db.consistent_snapshot

        @contextlib.asynccontextmanager
        async def then_more_entries(url: str, scratch: Path) -> AsyncIterator[db.SourceSnapshot]:
            async with read_database(url, scratch) as source:
                yield source
            assert (await ward.upload(ward.nurse, "after.txt", b"after T")).status_code == 201
            assert (await head.write_head(ward.storage)).written is not None

        monkeypatch.setattr(db, "consistent_snapshot", then_more_entries)
        snapshot = tmp_path / "snapshot"
        await backup(ward.settings, str(snapshot))
    held = sealed.objects(snapshot, sealed.identity(ward.settings))
    assert head.HEAD not in held
    restored = run_bff(_fresh_target(tmp_path, run_dir, "target"), "restore", str(snapshot))
    assert restored.returncode == 0, restored.stdout + restored.stderr
    assert "Restore verified" in restored.stdout
