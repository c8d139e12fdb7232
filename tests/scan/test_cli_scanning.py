"""Content a command stores (the demo) is scanned as an upload's is."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

from tools.devserver import local_env
from tools.testclamd import RunningClamd

REPO = Path(__file__).resolve().parents[2]


def test_the_demos_files_are_scanned(tmp_path: Path, clamd: RunningClamd) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "bff", "demo"],
        env=local_env(tmp_path, clamd=clamd.address),
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stderr
    with sqlite3.connect(tmp_path / "bff.sqlite3") as db:
        states = {state for (state,) in db.execute("SELECT scan_state FROM files")}
    assert states == {"clean"}
