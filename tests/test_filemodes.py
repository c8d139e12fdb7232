"""Private file modes (issue 30 point 8): what a real server and the command line write is
owner-only even when started under the usual umask 022, and `storage tighten` takes group and
other access away from what an older version left readable."""

from __future__ import annotations

import contextlib
import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import aiohttp

from tools.devserver import REPO, ServerProcess, local_env

ADMIN_PASSWORD = "file-modes-admin-pass"
BOUNDARY = "modes-boundary-5c1e"


@contextlib.contextmanager
def _usual_umask() -> Iterator[None]:
    """Start children as a shell would by default (files 0644, directories 0755)."""
    before = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(before)


def _readable_by_others(root: Path) -> list[str]:
    """Every path under root (root too) that grants its group or others any access."""
    found = []
    for path in [root, *root.rglob("*")]:
        mode = path.lstat().st_mode
        if not stat.S_ISLNK(mode) and mode & 0o077:
            found.append(f"{oct(stat.S_IMODE(mode))} {path.relative_to(root.parent)}")
    return found


def _cli(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(  # noqa: S603 - our own CLI
        [sys.executable, "-m", "bff", *args],
        env=env,
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )


async def _upload_a_file(server: ServerProcess) -> None:
    async with aiohttp.ClientSession() as session:
        login = {"username": "admin", "password": ADMIN_PASSWORD}
        async with session.post(f"{server.base}/api/auth/login", json=login) as response:
            assert response.status == 200
            headers = {"x-auth-token": (await response.json())["token"]}
        for url, body in (
            ("/api/admin/containers", {"name": "ward-modes"}),
            ("/api/admin/containers/ward-modes/folders", {"name": "patient-1"}),
        ):
            async with session.post(server.base + url, json=body, headers=headers) as response:
                assert response.status == 201
        form = (
            f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="file"; '
            'filename="notes.txt"\r\nContent-Type: text/plain\r\n\r\n'
            f"penicillin allergy\r\n--{BOUNDARY}--\r\n"
        ).encode()
        async with session.post(
            f"{server.base}/api/blobs/ward-modes/patient-1",
            data=form,
            headers={**headers, "Content-Type": f"multipart/form-data; boundary={BOUNDARY}"},
        ) as response:
            assert response.status == 201, await response.text()


async def test_what_the_server_and_the_command_line_write_is_owner_only(tmp_path: Path) -> None:
    """Before: the upload, the SQLite database, the generated keys and the backup were 0644
    (directories 0755) under umask 022."""
    root = tmp_path / "deployment"
    env = local_env(root, admin_password=ADMIN_PASSWORD)
    with _usual_umask():
        server = ServerProcess(env)
    try:
        await _upload_a_file(server)
    finally:
        server.stop()
    assert (root / "storage" / "ward-modes" / "patient-1" / "notes.txt").exists()
    with _usual_umask():
        assert _cli(env, "audit", "checkpoint").returncode == 0  # a checkpoint in storage
        backup = _cli(env, "backup", str(tmp_path / "backups" / "monday"))
    assert backup.returncode == 0, backup.stdout + backup.stderr
    assert (root / "bff.sqlite3").exists() and list((root / "storage" / ".bff-audit").iterdir())
    assert _readable_by_others(root) == []
    assert _readable_by_others(tmp_path / "backups" / "monday") == []


def test_tighten_makes_an_old_deployment_owner_only(tmp_path: Path) -> None:
    root = tmp_path / "deployment"
    env = local_env(root)
    backups = tmp_path / "backups"
    with _usual_umask():
        for directory in (root / "var", root / "storage" / "ward" / "p-1", backups / "monday"):
            directory.mkdir(parents=True)
            os.chmod(directory, 0o755)  # noqa: S103 - an old deployment, on purpose
        for path in (
            root / "bff.sqlite3",
            root / "var" / "audit_key",
            root / "storage" / "ward" / "p-1" / "scan.pdf",
            backups / "monday" / "manifest.json",
        ):
            path.write_bytes(b"old")
            os.chmod(path, 0o644)
    os.chmod(root, 0o700)  # the database's folder is the operator's (var/ by default, tightened)
    assert _readable_by_others(root) and _readable_by_others(backups)
    done = _cli(env, "storage", "tighten", str(backups))
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("Tightened 10 of "), done.stdout
    assert _readable_by_others(root) == [] and _readable_by_others(backups) == []
    assert stat.S_IMODE((root / "bff.sqlite3").stat().st_mode) == 0o600
    assert stat.S_IMODE((root / "storage" / "ward").stat().st_mode) == 0o700
    again = _cli(env, "storage", "tighten", str(tmp_path / "nowhere"))
    assert again.returncode == 1 and "Not found" in again.stderr
