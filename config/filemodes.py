"""Private file modes: everything the product writes (stored files, the SQLite database, keys,
backups, checkpoints, logs) is created readable by its owner only, and `python -m bff storage
tighten` takes group and other access away from what an older version left readable."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from config.settings import Settings

PRIVATE_UMASK = 0o077  # files 0600, directories 0700


def private_files() -> None:
    """Make everything this process creates from now on owner-only (every entry point calls it
    first: the command line, each Hypercorn worker, create_app; systemd and the Dockerfile set
    the same umask before the process starts)."""
    os.umask(PRIVATE_UMASK)


@dataclass
class Tightened:
    """What `tighten` changed."""

    changed: int = 0
    checked: int = 0
    missing: list[Path] = field(default_factory=list)


def tighten(paths: Iterable[Path]) -> Tightened:
    """Remove group and other permissions from each path and everything below it (symbolic
    links are neither followed nor changed)."""
    result = Tightened()
    for root in paths:
        if not root.exists():
            result.missing.append(root)
            continue
        for path in _below(root):
            mode = path.lstat().st_mode
            if stat.S_ISLNK(mode):
                continue
            result.checked += 1
            if mode & PRIVATE_UMASK:
                path.chmod(stat.S_IMODE(mode) & ~PRIVATE_UMASK)
                result.changed += 1
    return result


def _below(root: Path) -> Iterable[Path]:
    yield root
    if root.is_dir() and not root.is_symlink():
        for directory, names, files in os.walk(root):
            base = Path(directory)
            for name in names + files:
                yield base / name


def deployment_paths(settings: Settings) -> list[Path]:
    """What a deployment writes on this host: the var directory (keys, metrics), the SQLite
    database with its journal files, and local storage (S3 objects have no file modes)."""
    paths = [settings.var_dir]
    if settings.is_sqlite:
        database = settings.database_url.removeprefix("sqlite://")
        if database != ":memory:":
            paths += [Path(database + suffix) for suffix in ("", "-wal", "-shm", "-journal")]
    if settings.storage_url.startswith("file://"):
        paths.append(Path(settings.storage_url.removeprefix("file://")))
    return [path for path in paths if path.exists()]
