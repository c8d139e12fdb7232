"""Snapshots are encrypted and authenticated: what someone holding the backup folder can do to
one (edit a part and recompute every hash, swap in a part of another snapshot, downgrade the
manifest to the old format, seal it with a key of their own) is refused before the restore
writes anything, and the folder holds no patient file, password hash or session in the clear.
Restores run `python -m bff restore` against the same kind of database as the ward's."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import json
import os
import shutil
import subprocess
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pyrage
import pytest
from pyrage import x25519

from bff.backup.crypto import SMALL, CipherError, canonical, load_identity
from bff.backup.restore import SEEDED_BY_MIGRATIONS
from bff.backup.service import backup
from bff.users.models import Role, User
from config.settings import SettingsError, load_settings
from storage import open_storage
from tests import samples
from tests.backup import sealed
from tests.backup.test_drill import bff_env, objects, run_bff, run_module, table_rows
from tests.factories import make_staff
from tests.files.conftest import Ward
from tools.devserver import query_database, throwaway_postgres

USERS = "database/users.jsonl.gz.age"
OBJECTS = "objects.jsonl.gz.age"


@contextlib.asynccontextmanager
async def _target(
    ward: Ward, tmp_path: Path, run_dir: Path, name: str
) -> AsyncIterator[dict[str, str]]:
    """Settings of an empty deployment of the ward's database kind, for a restore."""
    async with contextlib.AsyncExitStack() as stack:
        url = f"sqlite://{tmp_path}/{name}.sqlite3"
        if ward.settings.database_url.startswith("postgres"):
            url = await stack.enter_async_context(throwaway_postgres("bff_sealed"))
        yield bff_env(url, f"file://{tmp_path}/{name}-storage", run_dir)


async def _refused(env: dict[str, str], snapshot: Path, message: str) -> None:
    """restore refuses the snapshot with message, and writes nothing: no database file (or no
    table in the PostgreSQL database), no storage."""
    refused = run_bff(env, "restore", str(snapshot))
    assert refused.returncode == 1, refused.stdout + refused.stderr
    assert "Restore failed: " in refused.stderr
    assert message in refused.stderr, refused.stderr
    assert "Nothing was restored." in refused.stderr
    assert not _exists(env["BFF_STORAGE_URL"].removeprefix("file://"))
    url = env["BFF_DATABASE_URL"]
    if url.startswith("sqlite://"):
        assert not _exists(url.removeprefix("sqlite://"))
    else:
        tables = "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = 'public'"
        assert await query_database(url, tables) == [(0,)]


def _exists(path: str) -> bool:
    return Path(path).exists()


async def test_assistant_made_admin_with_recomputed_hashes_is_refused(
    ward: Ward, tmp_path: Path, run_dir: Path
) -> None:
    """The reported attack: the users part edited (the assistant becomes admin), re-encrypted
    to the snapshot's public recipient, its SHA-256 and size recomputed in the manifest. Then
    the same with the manifest downgraded to the old format's bare SHA-256 seal, and sealed
    with the attacker's own key."""
    snapshot = tmp_path / "snapshot"
    await backup(ward.settings, str(snapshot))
    key = sealed.identity(ward.settings)
    lines = sealed.part_lines(snapshot, USERS, key)
    sealed.write_part(
        snapshot, USERS, sealed.promote(ward.assistant.user.id)(lines), update_manifest=True
    )
    manifest = sealed.sealed(snapshot)["manifest"]
    async with _target(ward, tmp_path, run_dir, "edited") as env:
        await _refused(env, snapshot, "The manifest is not authentic: it was changed after")

        old = {**manifest, "format": "bff-snapshot/1"}
        (snapshot / "manifest.json").write_text(
            json.dumps({"manifest": old, "sha256": hashlib.sha256(canonical(old)).hexdigest()})
        )
        await _refused(env, snapshot, "written before snapshots were encrypted and authenticated")

        mine = b"the attacker's own backup key, 32+ bytes long"
        own = hmac.new(mine, canonical(manifest), hashlib.sha256).hexdigest()
        forged = {"manifest": manifest, "hmacSha256": own, "keyId": "0123456789abcdef"}
        (snapshot / "manifest.json").write_text(json.dumps(forged))
        await _refused(env, snapshot, "it was written with another backup key (key id 01234")


async def test_parts_changed_or_swapped_are_refused_before_anything_is_written(
    ward: Ward, tmp_path: Path, run_dir: Path
) -> None:
    """Each part checked against the authenticated manifest: the users part and the object
    list re-encrypted with an edit (the manifest left alone), and each swapped for the same part
    of a later snapshot of the same deployment (valid age files to the same recipient)."""
    assert (await ward.upload(ward.nurse, "notes.txt", b"first")).status_code == 201
    first, later = tmp_path / "first", tmp_path / "later"
    await backup(ward.settings, str(first))
    assert (await ward.upload(ward.nurse, "more.txt", b"second")).status_code == 201
    await backup(ward.settings, str(later))
    key = sealed.identity(ward.settings)
    pristine = tmp_path / "pristine"
    shutil.copytree(first, pristine)

    def edit_users(lines: list[Any]) -> list[Any]:
        return sealed.promote(ward.assistant.user.id)(lines)

    def hide_a_file(lines: list[Any]) -> list[Any]:
        return [line for line in lines if not line["key"].endswith("/notes.txt")]

    async with _target(ward, tmp_path, run_dir, "target") as env:
        for part, edit in ((USERS, edit_users), (OBJECTS, hide_a_file)):
            changed = edit(sealed.part_lines(first, part, key))
            sealed.write_part(first, part, changed, update_manifest=False)
            await _refused(env, first, f"{part} does not match its checksum in the manifest")
            shutil.copyfile(later / part, first / part)
            await _refused(env, first, f"{part} does not match its checksum in the manifest")
            shutil.copyfile(pristine / part, first / part)
        (first / USERS).unlink()
        await _refused(env, first, f"The snapshot has no {USERS}")


def _swapping_restore(
    env: dict[str, str], snapshot: Path, step: str, part: str, replacement: Path
) -> subprocess.CompletedProcess[str]:
    """`restore` with part replaced by replacement when it says a line starting step
    (tests/backup/swapping_restore.py: after the check of every part, before the step reads)."""
    return run_module(
        env, "tests.backup.swapping_restore", str(snapshot), step, part, str(replacement)
    )


async def _nothing_restored(env: dict[str, str], scratch: Path) -> None:
    """No row in the target database but those its migrations seed, no object in its storage."""
    await asyncio.to_thread(scratch.mkdir)
    rows = await table_rows(env["BFF_DATABASE_URL"], scratch)
    filled = {name: found for name, found in rows.items() if found}
    assert set(filled) <= SEEDED_BY_MIGRATIONS, filled
    async with open_storage(env["BFF_STORAGE_URL"]) as files:
        assert await objects(files) == {}


@pytest.mark.parametrize("part", [USERS, OBJECTS])
async def test_a_part_swapped_after_the_check_stops_the_restore_with_nothing_restored(
    ward: Ward, tmp_path: Path, run_dir: Path, part: str
) -> None:
    """A part replaced after the check before the restore began, just before it is read (by
    the same part of a later snapshot of the deployment, or by another part of the same
    snapshot: valid age files to the same recipient): the restore finds it as it reads the
    part (its SHA-256 taken from the bytes it uses) and stops, leaving the target as empty as
    it found it, so the same restore with the part put back runs without --force. (Issue 48's
    mutation audit: the part's checksum not taken again as it is read went unnoticed.)"""
    assert (await ward.upload(ward.nurse, "notes.txt", b"first")).status_code == 201
    first, later, pristine = tmp_path / "first", tmp_path / "later", tmp_path / "pristine"
    await backup(ward.settings, str(first))
    await make_staff(ward.settings, Role.ADMIN)
    assert (await ward.upload(ward.nurse, "more.txt", b"second")).status_code == 201
    await backup(ward.settings, str(later))
    shutil.copytree(first, pristine)
    other_part = {USERS: "database/files.jsonl.gz.age", OBJECTS: USERS}[part]
    async with _target(ward, tmp_path, run_dir, "target") as env:
        for n, replacement in enumerate((later / part, pristine / other_part)):
            swapped = _swapping_restore(env, first, "Restoring the database", part, replacement)
            out = swapped.stdout + swapped.stderr
            assert swapped.returncode == 1, out
            assert f"(test) {part} replaced" in swapped.stderr  # after the check passed
            assert f"Restore failed: {part} does not match its checksum in the manifest" in (
                swapped.stderr
            ), out
            assert "Nothing was restored." in swapped.stderr
            await _nothing_restored(env, tmp_path / f"scratch-{n}")
            shutil.copyfile(pristine / part, first / part)
        restored = run_bff(env, "restore", str(first))
        assert restored.returncode == 0, restored.stdout + restored.stderr
        assert "Restore verified" in restored.stdout


async def test_snapshot_holds_nothing_in_the_clear(ward: Ward, tmp_path: Path) -> None:
    """No byte of a patient file, a password hash, a session id or a file's name."""
    record = b"Jane Roe, born 1961-04-02: biopsy result malignant. " * 40
    response = await ward.upload(ward.nurse, "jane-roe-biopsy.txt", record)
    assert response.status_code == 201
    snapshot = tmp_path / "snapshot"
    await backup(ward.settings, str(snapshot))
    nurse = await User.get(id=ward.nurse.user.id)
    secrets = [
        b"biopsy result malignant",
        b"jane-roe-biopsy",
        ward.folder.name.encode(),
        nurse.password_hash.encode(),
        b"$argon2",
        ward.nurse.token.encode(),
    ]
    sessions = await query_database(ward.settings.database_url, "SELECT id FROM sessions")
    assert sessions
    secrets += [str(row[0]).encode() for row in sessions]
    files = [p for p in snapshot.rglob("*") if p.is_file()]
    assert len(files) > 10
    for path in files:
        data = path.read_bytes() + str(path.relative_to(snapshot)).encode()
        for secret in secrets:
            assert secret not in data, (secret, path)
    # The same snapshot, decrypted, holds the file: the check above looked at real content.
    held = sealed.objects(snapshot, sealed.identity(ward.settings))
    assert held[f"{ward.container.name}/{ward.folder.name}/jane-roe-biopsy.txt"] == record


async def test_identity_kept_off_the_server(ward: Ward, tmp_path: Path, run_dir: Path) -> None:
    """BFF_BACKUP_RECIPIENT set, its identity in a file of the operator's: the backup needs
    only the recipient; a restore without that identity is refused before writing anything,
    with it the snapshot restores, verified, and every session it held is ended. A scan larger
    than SMALL goes through the streamed (threaded) encryption both ways."""
    scan = samples.dicom() + os.urandom(SMALL * 2 + 12345)  # a DICOM image's header, then noise
    assert (await ward.upload(ward.nurse, "scan.dcm", scan)).status_code == 201
    offline = x25519.Identity.generate()
    identity_file = tmp_path / "operator" / "backup.key"
    identity_file.parent.mkdir()
    identity_file.write_text(
        f"# created: 2026-11-27\n# public key: {offline.to_public()}\n{offline}\n"
    )
    ward.settings.backup_recipient_text()  # the server's own generated identity exists too
    settings = ward.settings.model_copy(update={"backup_recipient": str(offline.to_public())})
    snapshot = tmp_path / "snapshot"
    report = await backup(settings, str(snapshot))
    assert f"Encrypted to {offline.to_public()}" in report.lines()[-1]
    listing = pyrage.decrypt((snapshot / OBJECTS).read_bytes(), [offline])
    assert listing  # the operator's identity opens it
    async with _target(ward, tmp_path, run_dir, "restored") as env:
        await _refused(env, snapshot, f"The snapshot is encrypted to {offline.to_public()}")
        restored = run_bff(env, "restore", "--identity", str(identity_file), str(snapshot))
        assert restored.returncode == 0, restored.stdout + restored.stderr
        assert "Restore verified" in restored.stdout
        assert "manifest authenticated, every part's checksum matches" in restored.stdout
        assert "everyone signs in again" in restored.stdout
        held = await query_database(ward.settings.database_url, "SELECT COUNT(*) FROM sessions")
        assert held[0][0] >= 3  # the ward's staff were signed in when it was backed up
        assert f"Signed out: every session the snapshot held was ended ({held[0][0]} sessions" in (
            restored.stdout
        )
        left = await query_database(env["BFF_DATABASE_URL"], "SELECT COUNT(*) FROM sessions")
        assert left == [(0,)]
        copy = Path(env["BFF_STORAGE_URL"].removeprefix("file://"))
        assert (copy / ward.container.name / ward.folder.name / "scan.dcm").read_bytes() == scan


def test_recipient_setting_is_checked() -> None:
    with pytest.raises(SettingsError, match=r"BFF_BACKUP_RECIPIENT: .*age X25519 recipient"):
        load_settings(backup_recipient="age1notakey")
    with pytest.raises(SettingsError, match=r"BFF_BACKUP_KEY: .*32 bytes"):
        load_settings(backup_key="short")


def test_an_identity_file_that_is_not_text_is_refused_with_a_reason(tmp_path: Path) -> None:
    """`restore --identity` given a binary file by mistake (the snapshot's own, a key in another
    format): a CipherError that says so (restore prints it and stops), not a traceback."""
    given = tmp_path / "objects.age"
    given.write_bytes(b"age-encryption.org/v1\n\xff\xfe\x00binary")
    with pytest.raises(CipherError, match=r"objects\.age holds no age identity: it is not text"):
        load_identity(given)
