"""`make run` and `make test` begin with tools/check_versions.py: a Node or Python other than the
ones named (frontend/package.json's engines, pyproject.toml's requires-python) ends them with one
line naming the version needed and the one found, before anything installs."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tools import check_versions
from tools.devserver import REPO

CHECK = REPO / "tools" / "check_versions.py"


def check(tmp_path: Path, node_version: str | None) -> subprocess.CompletedProcess[str]:
    """The check run with this Python and, first on PATH, a `node` answering node_version
    (None: a `node` that fails, as a missing one does)."""
    node = tmp_path / "node"
    answer = f"echo {node_version}" if node_version else "exit 127"
    node.write_text(f"#!/bin/sh\n{answer}\n")
    node.chmod(node.stat().st_mode | stat.S_IXUSR)
    env = {**os.environ, "PATH": f"{tmp_path}{os.pathsep}{os.environ['PATH']}"}
    return subprocess.run(  # noqa: S603 - this Python and a file of the repository
        [sys.executable, str(CHECK)], capture_output=True, text=True, env=env, check=False
    )


@pytest.mark.parametrize("version", ["v20.19.0", "v20.20.2", "v22.13.1", "v24.1.0"])
def test_a_supported_node_passes_silently(tmp_path: Path, version: str) -> None:
    done = check(tmp_path, version)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


@pytest.mark.parametrize("version", ["v18.19.0", "v20.18.3", "v21.7.0", "v22.12.0", "v23.0.0"])
def test_another_node_is_named_with_the_one_needed(tmp_path: Path, version: str) -> None:
    done = check(tmp_path, version)
    assert done.returncode == 1
    assert done.stderr.startswith("Node 20.19 or a later 20.x, or 22.13 or a later 22.x, or 24")
    assert f"found {version}" in done.stderr
    assert "the README names Node 20" in done.stderr


def test_no_node_is_named_too(tmp_path: Path) -> None:
    done = check(tmp_path, None)
    assert done.returncode == 1
    assert "found no node on PATH" in done.stderr


def test_an_older_python_is_named_with_the_one_needed() -> None:
    assert check_versions.python_problem((3, 11, 2)) is None
    problem = check_versions.python_problem((3, 10, 12))
    assert problem is not None
    assert problem.startswith("Python 3.11 or newer is needed")
    assert "found Python 3.10.12" in problem
