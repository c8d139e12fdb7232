"""`python -m tools.scale_demo`: its checks, and a tiny seeding end to end (the seeding itself
is tested in tests/test_demo_scale.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from tools.devserver import REPO, local_env
from tools.scale_demo import main


def command(root: Path, module: str, *args: str) -> subprocess.CompletedProcess[str]:
    """`python -m module args` with everything under root (SQLite, local disk)."""
    return subprocess.run(  # noqa: S603 - our own commands
        [sys.executable, "-m", module, *args],
        env=local_env(root),
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )


COUNTS = "--staff must be 1-999, --containers 1-99, the others >= 0."
VOLUME = "--folders must be at most 99999, --files at most 999 per folder."


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--staff", "0"], COUNTS),
        (["--containers", "100"], COUNTS),
        (["--files", "-1"], COUNTS),
        (["--folders", "100000"], VOLUME),
        (["--folders", "1", "--files", "1000"], VOLUME),
        (
            ["--staff-password", "short"],
            "The password is too short: use at least 12 characters. "
            "A few unrelated words make a long password that is easy to remember.",
        ),
    ],
)
def test_sizes_out_of_range_exit_2_before_any_work(
    args: list[str], message: str, tmp_path: Path
) -> None:
    result = CliRunner(env=local_env(tmp_path)).invoke(main, args)
    assert result.exit_code == 2
    assert result.output == message + "\n"
    assert not (tmp_path / "bff.sqlite3").exists()


def test_a_tiny_seeding_is_indexed_and_audited(tmp_path: Path) -> None:
    sizes = ["--staff", "3", "--containers", "2", "--folders", "10", "--files", "20"]
    seeded = command(tmp_path, "tools.scale_demo", *sizes, "--staff-password", "staff-password")
    assert seeded.returncode == 0, seeded.stderr
    assert "files: 20 added (written and indexed)" in seeded.stdout
    assert "  3 staff (doctor.001, nurse.002, assistant.003, ...): the given password" in (
        seeded.stdout
    )
    again = command(tmp_path, "tools.scale_demo", *sizes)
    assert "files: 0 added" in again.stdout and "3 staff exist" in again.stdout
    reindex = command(tmp_path, "bff", "storage", "reindex")
    assert "Files added: 0\n" in reindex.stdout
    assert "Files removed (no longer in storage): 0" in reindex.stdout
    verified = command(tmp_path, "bff", "audit", "verify")
    assert verified.returncode == 0 and "intact" in verified.stdout
