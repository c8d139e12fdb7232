"""The first step of `make run` and `make test`: the Python and Node the README names, or one
line naming the version needed and the one found, and exit status 1, before anything installs.

Python: pyproject.toml's requires-python (run with the interpreter that makes, or made, .venv).
Node: frontend/package.json's engines.node (the range Vite, ESLint and jsdom support; every
package either lock installs supports it, so `npm ci` prints no engine warning on it).

Written for any Python 3 (a wrong one is what it reports), with the standard library only.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    Version = tuple[int, int, int]

ROOT = Path(__file__).resolve().parent.parent


def parse(text: str) -> Version:
    """'v20.19.2', '20.19' or '24' as (major, minor, patch)."""
    numbers = [int(n) for n in re.findall(r"\d+", text)[:3]]
    major, minor, patch = [*numbers, 0, 0, 0][:3]
    return major, minor, patch


def satisfies(version: Version, wanted: str) -> bool:
    """Whether version is in an npm-style range of alternatives ('^20.19.0 || >=24'): each
    '^X.Y.Z' (X.Y.Z or newer within major X) or '>=X.Y.Z'."""
    for alternative in wanted.split("||"):
        alternative = alternative.strip()
        if alternative.startswith("^"):
            low = parse(alternative[1:])
            if version[0] == low[0] and version >= low:
                return True
        elif alternative.startswith(">="):
            if version >= parse(alternative[2:]):
                return True
        else:
            raise ValueError(f"unsupported version range: {alternative!r}")
    return False


def described(wanted: str) -> str:
    """A range in words: '^20.19.0 || >=24' as '20.19 or a later 20.x, or 24 or newer'."""
    words = []
    for alternative in wanted.split("||"):
        alternative = alternative.strip()
        major, minor, _ = parse(alternative)
        shown = f"{major}.{minor}" if minor or "." in alternative else str(major)
        if alternative.startswith("^"):
            words.append(f"{shown} or a later {major}.x")
        else:
            words.append(f"{shown} or newer")
    return ", or ".join(words)


def python_problem(found: Version) -> str | None:
    """What is wrong with the Python found, or None."""
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    match = re.search(r'^requires-python\s*=\s*"([^"]+)"', pyproject, re.MULTILINE)
    wanted = match.group(1) if match else ">=3.11"
    if satisfies(found, wanted):
        return None
    return (
        f"Python {described(wanted)} is needed (pyproject.toml; the README names Python 3.11); "
        f"found Python {'.'.join(map(str, found))} at {sys.executable}. Install it and run make "
        "again (or name it: make PYTHON=/path/to/python3.11 ...)"
        + ("; .venv was made with this one: remove it first (make clean)." if in_venv() else ".")
    )


def in_venv() -> bool:
    """Whether this Python is a virtual environment's (.venv's, when make runs it)."""
    return sys.prefix != sys.base_prefix


def node_problem(found: str | None) -> str | None:
    """What is wrong with the Node found (its `node --version`, None when there is none)."""
    package = json.loads((ROOT / "frontend" / "package.json").read_text(encoding="utf-8"))
    wanted = package["engines"]["node"]
    if found is not None and satisfies(parse(found), wanted):
        return None
    return (
        f"Node {described(wanted)} is needed (frontend/package.json's engines; the README names "
        f"Node 20); found {found or 'no node on PATH'}. Install it and run make again."
    )


def installed_node() -> str | None:
    """`node --version`, or None when there is no node."""
    try:
        done = subprocess.run(
            ["node", "--version"],  # noqa: S607 - the node on PATH is the one make uses
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0:
        return None
    return done.stdout.strip() or None


def main() -> int:
    """Print each problem on stderr; 1 when there is one."""
    running = (sys.version_info.major, sys.version_info.minor, sys.version_info.micro)
    problems = [
        problem for problem in (python_problem(running), node_problem(installed_node())) if problem
    ]
    for problem in problems:
        print(problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
